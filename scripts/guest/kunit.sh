#!/bin/bash
# Load the series' KUnit suite as a module and save its KTAP results.
# Usage: kunit.sh MODULE SUITE   (guest side; init.sh runs it)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
module=$1 suite=$2

phase "kunit $module"
step 600 modprobe "$module" || fail "modprobe $module failed"
res=/sys/kernel/debug/kunit/$suite/results
[ -r "$res" ] || fail "no KUnit results at $res"
cp "$res" "$OUT/kunit.ktap"
dmesg >"$OUT/dmesg.txt"
phase finished
