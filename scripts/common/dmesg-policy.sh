# shellcheck shell=bash
# shellcheck disable=SC2034 # read by the scripts that source it
# The dmesg policy, one file that host and guest scripts both source
# (scripts/guest/lib.sh; on the host blktests.sh, check-stress-known.sh,
# stress-report.sh), so that neither reads the other's source.
#
# What fails every run when dmesg shows it: a splat (WARN, BUG, Oops,
# KASAN, UBSAN, refcount, list corruption, debugobjects), lockdep (its
# checker is in the debug kernel only), a hung task (DETECT_HUNG_TASK, in
# both kernels), a kmemleak report, a failed post of any nvme_rdma
# function (the series: "nvme_rdma_post_pending failed with error code
# -12", upstream: nvme_rdma_post_send, nvme_rdma_post_recv, and the LOCAL_INV of
# nvme_rdma_inv_rkey, "Queueing INV WR for rkey ... failed"), and the test
# rxe's verdicts (tests/rxe-strict): a retransmitted SEND whose payload
# changed ("rdma_rxe: retry oracle: ..."), a post into a full send queue
# ("rdma_rxe: strict_sq: ... send queue full") and a local operation
# executed again after a retry ("rdma_rxe: test: ...", stock rxe without
# fixes/rxe).
DMESG_BAD='WARNING:|BUG:|Oops|nvme_rdma_[a-z_]+ failed with error code|post_send failed|Queueing INV WR for rkey .* failed|possible circular locking|possible recursive locking|inconsistent lock state|INFO: task .* blocked for more than|UBSAN:|kmemleak: [0-9]+ new suspected|refcount_t:|list_(add|del) corruption|ODEBUG:|rdma_rxe: retry oracle:|rdma_rxe: strict_sq: .*send queue full|rdma_rxe: test: '

# Error recovery and what leads to it, as 6.12's host driver logs it
# (rdma.c: nvme_rdma_error_recovery, reconnect_or_remove,
# reconnect_ctrl_work, nvme_rdma_timeout, nvme_rdma_wr_error (a failed
# completion while live), the bad-response checks; core.c: keep-alive).
# A run fails on it unless it injected a fault and says so with
# ALLOW_RECOVERY=1 (resets, port removal, target fatal error, lossy links,
# disconnects under I/O, blktests).
DMESG_RECOVERY='nvme nvme[0-9]+: (starting error recovery|Reconnecting in [0-9]+ seconds|Failed reconnect attempt|I/O tag [0-9]+ .* timeout|[A-Z_]+ for CQE 0x[0-9a-f]+ failed with status|got bad command_id|Bogus remote invalidation|Unexpected nvme completion length|failed nvme_keep_alive_end_io|keep-alive failed|resetting controller)'
