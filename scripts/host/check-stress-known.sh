#!/usr/bin/env bash
# make stress's report (stress-report.sh) on made-up lane results: a
# series scenario that failed on a target-side lockdep report, with the
# unpatched driver's triage rerun of it. The row may read "known" (and
# the report pass) only when the unpatched driver failed the same
# scenario on the same kernel with a report of the lock classes listed in
# config/stress-known.tsv, and the series failed on that report alone
# with its data verified. A check that cannot fail is not a check: each
# case that must fail is watched failing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/common/dmesg-policy.sh
. "$TOP/scripts/common/dmesg-policy.sh"
# STRESS_OUTSIDE_ROW
# shellcheck source=scripts/common/stress-plan.sh
. "$TOP/scripts/common/stress-plan.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
entry=$(grep -v '^#' "$TOP/config/stress-known.tsv" | head -1)
[ -n "$entry" ] || die "config/stress-known.tsv lists no known failure to check"
IFS=$'\t' read -r scn kernel locks _ <<<"$entry"
read -r lock_a lock_b <<<"$locks"
[ -n "$lock_b" ] || die "the known failure of $scn names fewer than two lock classes: '$locks'"

# splat_dmesg FILE LOCK_A LOCK_B [EXTRA_LINE...]: a lockdep report, as
# the guest kernel prints it, of a chain through the two lock classes.
splat_dmesg() {
	local f=$1 a=$2 b=$3
	shift 3
	cat >"$f" <<EOF
[  230.000001] nvme nvme0: Removing ctrl: NQN "nqn.test"
[  236.043402] WARNING: possible circular locking dependency detected
[  236.044576] rm/427 is trying to acquire lock:
[  236.044851] ffff8880043a9420 ($a){+.+.}-{3:3}, at: rdma_destroy_id+0x1b/0x30 [rdma_cm]
               but task is already holding lock:
[  236.046410] ffffffffc04612d0 ($b){++++}-{3:3}, at: nvmet_port_subsys_drop_link+0x50/0x2f0 [nvmet]
               the existing dependency chain (in reverse order) is:
               -> #1 ($b){++++}-{3:3}:
[  236.049436]        nvmet_find_get_subsys+0x1b1/0x520 [nvmet]
               -> #0 ($a){+.+.}-{3:3}:
[  236.054203]        rdma_destroy_id+0x1b/0x30 [rdma_cm]
               other info that might help us debug this:
                Possible unsafe locking scenario:
[  236.057655]        ----                    ----
[  236.057857]   lock($b);
[  236.058076]                                lock($a);
[  236.059441]  #3: ffffffffc04612d0 ($b){++++}-{3:3}, at: nvmet_port_subsys_drop_link+0x50/0x2f0 [nvmet]
EOF
	[ $# = 0 ] || printf '%s\n' "$@" >>"$f"
}

# lane DIR DRIVER RESULT VERIFIED [splat args...]: a guest's stress.tsv and
# the scenario's dmesg. Env: REC (the recovery cell), AFTER (a scenario
# that ran after it in the same guest).
lane() {
	local dir=$1 result=$3 verified=$4 note=- splats=0
	shift 4
	mkdir -p "$dir/scn"
	if [ $# -gt 0 ]; then
		splat_dmesg "$dir/scn/$scn.dmesg" "$@"
		splats=$(grep -cE "$DMESG_BAD" "$dir/scn/$scn.dmesg")
		note="splat: [  236.043402] WARNING: possible circular locking dependency detected"
	else
		echo "[  230.000001] nothing" >"$dir/scn/$scn.dmesg"
	fi
	printf 'scenario\tresult\tverified\tsplats\tseconds\tnote\trecovery\n%s\t%s\t%s\t%s\t59\t%s\t%s\n' \
		"$scn" "$result" "$verified" "$splats" "$note" "${REC:-3 (faults injected)}" >"$dir/stress.tsv"
	[ -z "${AFTER:-}" ] || printf '%s\tpass\tyes\t0\t40\t-\t0 (no fault injected)\n' "$AFTER" >>"$dir/stress.tsv"
	return 0
}

# fixture NAME CASE: $tmp/NAME/logs as make stress leaves it.
fixture() {
	local L=$tmp/$1/logs
	local up=$L/stress-triage-$kernel-upstream se=$L/stress-faults-series
	mkdir -p "$L/stress"
	echo "$scn" >"$L/stress/faults-series.scenarios"
	echo "$kernel" >"$L/stress/faults-series.variant"
	echo "$scn" >"$L/stress/triage-$kernel-upstream.scenarios"
	case "$2" in
	series-locks) lane "$se" series FAIL "yes (3 runs)" "$lock_a" "$lock_b" \
			'               -> #2 ((work_completion)(&ctrl->err_work)){+.+.}-{0:0}:'
		lane "$up" upstream FAIL "yes (3 runs)" "$lock_a" "$lock_b" ;;
	host-frame) lane "$se" series FAIL "yes (3 runs)" "$lock_a" "$lock_b" \
			'[  236.054300]        nvme_rdma_delete_ctrl+0x1b/0x30 [nvme_rdma]'
		lane "$up" upstream FAIL "yes (3 runs)" "$lock_a" "$lock_b" ;;
	outside-row) AFTER=$STRESS_OUTSIDE_ROW lane "$se" series FAIL "yes (3 runs)" "$lock_a" "$lock_b"
		lane "$up" upstream FAIL "yes (3 runs)" "$lock_a" "$lock_b" ;;
	not-last) AFTER=fatal-3 lane "$se" series FAIL "yes (3 runs)" "$lock_a" "$lock_b"
		lane "$up" upstream FAIL "yes (3 runs)" "$lock_a" "$lock_b" ;;
	stale-triage) lane "$se" series FAIL "yes (3 runs)" "$lock_a" "$lock_b"
		lane "$up" upstream FAIL "yes (3 runs)" "$lock_a" "$lock_b"
		rm "$L/stress/triage-$kernel-upstream.scenarios" ;;
	unexpected-recovery) REC="2 (no fault injected)" lane "$se" series FAIL "yes (3 runs)" "$lock_a" "$lock_b"
		lane "$up" upstream FAIL "yes (3 runs)" "$lock_a" "$lock_b" ;;
	same) lane "$L/stress-faults-series" series FAIL "yes (3 runs)" "$lock_a" "$lock_b"
		lane "$L/stress-triage-$kernel-upstream" upstream FAIL "yes (3 runs)" "$lock_a" "$lock_b" ;;
	upstream-passed) lane "$L/stress-faults-series" series FAIL "yes (3 runs)" "$lock_a" "$lock_b"
		lane "$L/stress-triage-$kernel-upstream" upstream pass "yes (3 runs)" ;;
	other-locks) lane "$L/stress-faults-series" series FAIL "yes (3 runs)" "$lock_a" "$lock_b"
		lane "$L/stress-triage-$kernel-upstream" upstream FAIL "yes (3 runs)" "$lock_a" "&queue->send_lock" ;;
	second-splat) lane "$L/stress-faults-series" series FAIL "yes (3 runs)" "$lock_a" "$lock_b" \
			"[  240.000000] BUG: KASAN: slab-use-after-free in nvme_rdma_send_done+0x10/0x20 [nvme_rdma]"
		lane "$L/stress-triage-$kernel-upstream" upstream FAIL "yes (3 runs)" "$lock_a" "$lock_b" ;;
	not-verified) lane "$L/stress-faults-series" series FAIL "no" "$lock_a" "$lock_b"
		lane "$L/stress-triage-$kernel-upstream" upstream FAIL "yes (3 runs)" "$lock_a" "$lock_b" ;;
	esac
}

bad=0
result() { # NAME OK|WRONG DETAIL
	printf '%-16s %-5s %s\n' "$1" "$2" "$3"
	[ "$2" = ok ] || bad=1
}
# case NAME EXPECT(known|FAIL)
check_case() {
	local rc=0 got
	fixture "$1" "$1"
	BUILD=$tmp/$1 "$TOP/scripts/host/stress-report.sh" >"$tmp/$1/out" 2>&1 || rc=$?
	got=$(awk -F'\t' -v s="$scn" '$1 == s { print $3 }' "$tmp/$1/logs/stress-report.tsv" 2>/dev/null)
	if [ "$2" = known ] && [ "$got" = known ] && [ $rc = 0 ]; then
		result "$1" ok "row known, report passes"
	elif [ "$2" = FAIL ] && [ "$got" = FAIL ] && [ $rc != 0 ]; then
		result "$1" ok "row FAIL, report fails"
	else
		result "$1" WRONG "row '${got:-none}', report exit $rc (want $2): $(tail -1 "$tmp/$1/out")"
	fi
}
check_case same known
# the guest's row for splats outside the scenarios is not a scenario: the
# one before it still ran last (the row is forged "pass" here, so only
# which row counts as last decides)
check_case outside-row known
check_case upstream-passed FAIL
check_case other-locks FAIL
check_case second-splat FAIL
check_case not-verified FAIL
check_case series-locks FAIL
check_case host-frame FAIL
check_case not-last FAIL
check_case stale-triage FAIL
check_case unexpected-recovery FAIL
[ $bad = 0 ] || die "stress-report.sh excuses a failure it must not, or not the one it must"
log "stress-known: the known lockdep report is excused only when the unpatched driver shows it too (9 must-fail cases failed)"
