#!/bin/bash
# The distro test (guest side), on Debian's own kernel binary: install the
# DKMS package, check that modprobe picks its nvme-rdma, run the boot
# test's I/O check on it, remove the package, and run the I/O check again
# on the stock module it restored.
# Usage: distro-dkms.sh DEB VERSION   (init.sh runs it)
# Writes $OUT/dkms/ and $OUT/stock/ (each a boot-test result directory).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
deb=$1 version=$2
here=$(dirname "$(readlink -f "$0")")
kver=$(uname -r)
stock=/lib/modules/$kver/kernel/drivers/nvme/host/nvme-rdma.ko

# modprobe's choice for nvme_rdma, as a path.
chosen() { modinfo -n nvme_rdma 2>/dev/null || echo none; }

phase "stock module: $(chosen)"
case "$(chosen)" in "$stock"*) ;; *) fail "before the install modprobe picks $(chosen), not $stock*" ;; esac

phase "dpkg -i $(basename "$deb")"
if ! step 1800 dpkg -i "$deb" >"$OUT/dpkg-install.log" 2>&1; then
	fail "dpkg -i failed: $(grep -m1 -E 'refusing|Error!' "$OUT/dpkg-install.log" || tail -1 "$OUT/dpkg-install.log")"
fi
dkms status >"$OUT/dkms-status.txt"
grep -q "^nvme-rdma-sq/$version, $kver, .*: installed" "$OUT/dkms-status.txt" ||
	fail "dkms status does not show nvme-rdma-sq/$version installed for $kver: $(cat "$OUT/dkms-status.txt")"
modinfo nvme_rdma >"$OUT/modinfo-dkms.txt"
case "$(chosen)" in */updates/dkms/nvme-rdma.ko*) ;; *) fail "after the install modprobe picks $(chosen), not updates/dkms" ;; esac
[ "$(modinfo -F version nvme_rdma)" = "$version" ] ||
	fail "modinfo version is '$(modinfo -F version nvme_rdma)', want $version"
phase "dkms module $(modinfo -F series nvme_rdma)"

# Batched I/O with the series: under 0.1 send CQEs and posts per I/O. The
# package is the product: no test instrument, so no ring state.
OUT=$OUT/dkms EXPECT_DRIVER=series EXPECT_INSTRUMENT=no BATCH_MAX_SEND=0.1 "$here/nvme-rdma-io.sh" check ||
	fail "I/O check on the DKMS module: $(cat "$OUT/dkms/error" 2>/dev/null || echo 'see console')"
step 60 modprobe -r nvme_rdma || fail "modprobe -r nvme_rdma (DKMS module) failed"

phase "dpkg -r nvme-rdma-sq-dkms"
step 600 dpkg -r nvme-rdma-sq-dkms >"$OUT/dpkg-remove.log" 2>&1 ||
	fail "dpkg -r failed: $(tail -1 "$OUT/dpkg-remove.log")"
if ls "/lib/modules/$kver/updates/dkms/nvme-rdma.ko"* >/dev/null 2>&1; then
	fail "dpkg -r left the DKMS module in /lib/modules/$kver/updates/dkms"
fi
case "$(chosen)" in "$stock"*) ;; *) fail "after the removal modprobe picks $(chosen), not $stock*" ;; esac

OUT=$OUT/stock EXPECT_DRIVER=upstream "$here/nvme-rdma-io.sh" check ||
	fail "I/O check on the stock module: $(cat "$OUT/stock/error" 2>/dev/null || echo 'see console')"
phase finished
