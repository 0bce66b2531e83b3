# nvme-rdma send-completion suppression: the patch series and its harness.
# The two commands: `make run` (the main job) and `make check` (the tests).

BASE ?= linux-7.3
export BASE
START_TIME := $(shell date +%s)
export START_TIME
H := scripts/host

.PHONY: all run check deps tree export build series-check kunit-guest boot-test bench bench-aa blktests kunit-mutants backport-tree backport-check \
	deb dkms-check distro-test hw-selftest \
	kunit shellcheck clean distclean help submit-check stress stress-report bench-debug negative-control controls

all: help

help:
	@echo "make run      build the patched kernel, boot it, nvme connect over soft-RoCE, fio, summary"
	@echo "make check    series hygiene, KUnit in the guest kernel, the boot test"
	@echo "make tree     (re)create build/$(BASE): upstream import commit + git am of patches/$(BASE)"
	@echo "make export   write build/$(BASE)'s commits back to patches/$(BASE) (author: git config)"
	@echo "make submit-check  refuse to send patches with a placeholder author or Signed-off-by,"
	@echo "              or with a trailer block git interpret-trailers does not parse"
	@echo "make build    configure and build the guest kernel"
	@echo "make bench    upstream vs series: IOPS from boots with nothing counting, completions"
	@echo "              per command from separate count boots (icount TCG)"
	@echo "make bench-aa the series against itself, the same way: the method's bias and noise"
	@echo "make blktests blktests nvme group over rxe, upstream vs series (TESTS=nvme/003 ...)"
	@echo "make stress   queue-size matrix (normal kernel); faults, corners, module and connect"
	@echo "              cycles, two-host lossy fabric (debug kernel); negative control;"
	@echo "              unpatched driver reruns what the series fails (STRESS_UPSTREAM=all:"
	@echo "              everything side by side); report in build/logs/stress-report.md"
	@echo "make bench-debug  what each debug checker costs under TCG (icount)"
	@echo "make controls the series on the test rxe (mlx5 slot rules, retry oracle, forced"
	@echo "              retransmission, writes and reads), two pollers on one poll queue, and the six controls that must fail"
	@echo "make negative-control  only the controls that must fail: the 2017 rule overflows"
	@echo "              strict rxe, a request completing on its response trips the retry oracle,"
	@echo "              and so does a read capsule, or a write's pulled-up data, rewritten before"
	@echo "              its SEND is retired"
	@echo "make kunit-mutants  break rdma_send_ring.h on purpose (UML KUnit): every mutant must fail the suite"
	@echo "make kunit    kunit.py run --kunitconfig=drivers/nvme/host (UML) in build/$(BASE)"
	@echo "make backport-check  the 6.12 and 6.1 series: drift from 7.3, checkpatch/W=1/sparse per patch, UML KUnit"
	@echo "make deb     the DKMS package build/dkms/nvme-rdma-sq-dkms_VERSION_all.deb"
	@echo "make dkms-check  the package: contents, refusals, W=1 build against installed Debian headers"
	@echo "make distro-test Debian's own 6.1 and 6.12 kernel binaries: install the .deb, I/O, remove, I/O"
	@echo "make hw-selftest the hardware mode script (scripts/guest/nvme-rdma-hw.sh) with rxe0 standing in"
	@echo "BASE=linux-6.12 or linux-6.1 selects a backport series (tree, export, kunit); default linux-7.3"
	@echo "VARIANT=mlx5 make build: the kernel plus config/mlx5.config, for ConnectX boot tests"

deps:
	@$(H)/deps.sh

tree: deps
	@$(H)/tree.sh

export:
	@$(H)/export.sh

submit-check:
	@$(H)/check-identity.sh
	@$(H)/check-trailers.sh

build: tree
	@$(H)/build-kernel.sh

run: build
	@$(H)/run-boot-test.sh

series-check: build
	@$(H)/check-series.sh

kunit-guest: build
	@$(H)/check-kunit.sh

boot-test: build
	@$(H)/run-boot-test.sh

check: deps tree build backport-tree
	@$(H)/check.sh

# The backports (6.12, 6.1) are checked, not booted from their own build:
# their trees, configured for the per-patch W=1/sparse builds of
# check-series.
BACKPORTS := linux-6.12 linux-6.1
backport-tree: deps
	@for b in $(BACKPORTS); do BASE=$$b $(H)/tree.sh && BASE=$$b $(H)/configure-kernel.sh || exit 1; done

backport-check: backport-tree
	@$(H)/check-drift.sh
	@for b in $(BACKPORTS); do BASE=$$b $(H)/check-series.sh && BASE=$$b $(H)/check-kunit-uml.sh || exit 1; done

deb: deps
	@$(H)/build-dkms-deb.sh >/dev/null

dkms-check: deps
	@$(H)/check-dkms.sh

# Both Debian kernels by default; DISTRO_BASES=linux-6.1 for one.
DISTRO_BASES ?= linux-6.1 linux-6.12
distro-test: deps
	@for b in $(DISTRO_BASES); do BASE=$$b $(H)/run-distro-test.sh || exit 1; done

hw-selftest: build
	@$(H)/run-hw-selftest.sh

bench: build
	@$(H)/bench.sh

# A/A: the series against itself, booted as make bench boots the two
# drivers; its changes are the method's own bias and noise.
bench-aa: build
	@BENCH_AA=1 $(H)/bench.sh

blktests: build
	@$(H)/blktests.sh $(TESTS)

stress: tree
	@$(H)/stress.sh

stress-report:
	@$(H)/stress-report.sh

# What each debug checker costs under TCG (the choice in stress.sh).
bench-debug: tree
	@$(H)/build-kernel.sh
	@VARIANT=debug MODROOT='' $(H)/build-kernel.sh
	@VARIANT=kasan MODROOT='' $(H)/build-kernel.sh
	@$(H)/debug-cost.sh

controls: build
	@$(H)/check-controls.sh

negative-control: build
	@$(H)/check-controls.sh lane=negative

kunit-mutants: tree
	@$(H)/kunit-mutants.sh

kunit: tree
	@$(H)/check-kunit-uml.sh

clean:
	rm -rf build/logs build/obj-* build/modroot-* build/kunit-uml-* build/dkms build/distro

distclean:
	rm -rf build
