# shellcheck shell=bash
# Shared helpers for the host-side scripts: sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
BASE=${BASE:-linux-7.3}
START_TIME=${START_TIME:-$(date +%s)}
export TOP BUILD BASE START_TIME

# Debian source package for each base we carry a series for.
source_pkg() {
	case "$1" in
	linux-7.3) echo linux-source-7.3 ;;
	linux-6.12) echo linux-source-6.12 ;;
	linux-6.1) echo linux-source-6.1 ;;
	*) die "unknown base '$1' (want linux-7.3, linux-6.12 or linux-6.1)" ;;
	esac
}

# The Debian suite a base's source comes from when the system's apt
# (bookworm) does not carry it: fetch-source.sh downloads it with a private
# sources list into $BUILD/src/PKG, so no trixie package reaches the system.
source_suite() {
	case "$1" in
	linux-7.3) echo trixie-backports ;;
	*) echo "" ;;
	esac
}

# source_tarball BASE / source_version BASE: the linux-source tarball and
# its Debian version, from the system's dpkg or from fetch-source.sh.
source_tarball() {
	local pkg
	pkg=$(source_pkg "$1")
	if [ -n "$(source_suite "$1")" ]; then
		echo "$BUILD/src/$pkg/usr/src/$pkg.tar.xz"
	else
		echo "/usr/src/$pkg.tar.xz"
	fi
}
source_version() {
	local pkg
	pkg=$(source_pkg "$1")
	if [ -n "$(source_suite "$1")" ]; then
		cat "$BUILD/src/$pkg/version" 2>/dev/null || echo missing
	else
		dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo missing
	fi
}

# patch_header FILE NAME: the value of mail header NAME of a patch file,
# unfolded (format-patch folds a long Subject: or From: over lines).
patch_header() {
	awk -v h="$2: " '!f && index($0, h) == 1 { v = substr($0, length(h) + 1); f = 1; next }
		f && /^[ \t]/ { sub(/^[ \t]+/, " "); v = v $0; next }
		f { print v; exit }
		/^$/ { exit }' "$1"
}

# The test-only instrument that the guest kernel's series builds carry on
# top of the series (build-kernel.sh, build-baseline.sh ... series): the
# send rings' state in debugfs, which the guest scripts read (sq_read,
# credits_idle). The product series has no debugfs.
instrument_diff() { echo "$TOP/tests/instrument/$BASE.diff"; }

# apply_instrument: apply instrument_diff to $TREE's working tree, or die
# naming the cause. The caller restores the tree (git checkout -f).
apply_instrument() {
	local d
	d=$(instrument_diff)
	[ -f "$d" ] || die "no test instrument for $BASE at $d"
	git -C "$TREE" apply "$d" ||
		die "the test instrument $d does not apply to the series of $BASE"
}

# The patch files of patches/$BASE in series order, one per line.
series_patches() {
	grep -vE '^(#|$)' "$TOP/patches/$BASE/series" || true
}

# What a generated tree is made of: source version and series contents.
tree_stamp() {
	local pkg f
	pkg=$(source_pkg "$BASE")
	{
		cat "$TOP/patches/$BASE/series"
		series_patches | while read -r f; do cat "$TOP/patches/$BASE/$f"; done
	} | sha256sum | cut -c1-16 | sed "s/^/$pkg $(source_version "$BASE") /"
}

# private_apt TYPE SUITE: an apt of our own for Debian SUITE (TYPE deb or
# deb-src) under $BUILD/apt-SUITE: its sources list, package lists and
# cache, updated; sets APT_DIR and APT_OPTS (pass "${APT_OPTS[@]}" to
# apt-get). The system's apt configuration and packages stay as they are.
private_apt() {
	local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	command -v apt-get >/dev/null || die "no apt-get: cannot reach Debian $2"
	[ -f "$keyring" ] || die "$keyring missing: install debian-archive-keyring"
	APT_DIR=$BUILD/apt-$2
	mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial" "$APT_DIR/etc/preferences.d"
	echo "$1 [signed-by=$keyring] http://deb.debian.org/debian $2 main" >"$APT_DIR/etc/sources.list"
	APT_OPTS=(-o Dir::Etc::SourceList="$APT_DIR/etc/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::Etc::Preferences="$APT_DIR/etc/preferences"
		-o Dir::Etc::PreferencesParts="$APT_DIR/etc/preferences.d"
		-o Dir::State::Lists="$APT_DIR/lists" -o Dir::Cache="$APT_DIR/cache"
		-o APT::Sandbox::User=root)
	apt-get "${APT_OPTS[@]}" update -qq >"$APT_DIR/update.log" 2>&1 ||
		die "apt-get update of Debian $2 ($1) failed (see $APT_DIR/update.log)"
}

elapsed() {
	local s=$(($(date +%s) - START_TIME))
	printf '%02d:%02d' $((s / 60)) $((s % 60))
}

log() { printf '[%s] %s\n' "$(elapsed)" "$*" >&2; }

# progress_while PID WHAT FUNC: while PID runs, every PROGRESS_EVERY
# seconds (default 60) log "WHAT: $(FUNC)", so long work shows its phase
# and elapsed time on the terminal.
progress_while() {
	local pid=$1 what=$2 fn=$3 next=$((SECONDS + ${PROGRESS_EVERY:-60}))
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		[ $SECONDS -ge $next ] || continue
		next=$((SECONDS + ${PROGRESS_EVERY:-60}))
		kill -0 "$pid" 2>/dev/null && log "$what: $($fn)"
	done
	return 0
}
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# VARIANT=debug (config/debug.config) or mlx5 (config/mlx5.config, for
# boot tests on ConnectX hardware): the same kernel plus that fragment, in
# its own object tree and module root, so the builds stay warm side by side.
# VARIANT=kasan: debug.config then kasan.config (UBSAN off), for make
# bench-debug to price KASAN and UBSAN apart.
VARIANT=${VARIANT:-}
case "$VARIANT" in
"" | debug | kasan | mlx5) ;;
*) die "unknown VARIANT '$VARIANT' (want empty, debug, kasan or mlx5)" ;;
esac
SUFFIX=${BASE#linux-}${VARIANT:+-$VARIANT}
TREE=$BUILD/$BASE
OBJ=$BUILD/obj-$SUFFIX
# The series' modules, and the upstream import's (build-baseline.sh).
MODROOT=${MODROOT:-$BUILD/modroot-$SUFFIX}
UP_MODROOT=$BUILD/modroot-$SUFFIX-upstream
LOGS=$BUILD/logs
# kunit.py's UML build of $BASE (check-kunit-uml.sh, kunit-mutants.sh).
KUNIT_UML=$BUILD/kunit-uml-${BASE#linux-}
export VARIANT TREE OBJ MODROOT UP_MODROOT LOGS KUNIT_UML

# Kernel make with the project's fixed settings: out-of-tree objects,
# ccache, no version suffix so the module directory stays stable, and
# sid's sparse (build-sparse.sh; Debian 12's cannot parse 7.x headers) for
# C=1/C=2 on every base.
SPARSE=${SPARSE:-$BUILD/tools/bin/sparse}
kmake() {
	local cc=gcc
	command -v ccache >/dev/null && cc="ccache gcc"
	CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1 \
		make -s -C "$TREE" O="$OBJ" CC="$cc" CHECK="$SPARSE" LOCALVERSION= "$@"
}

# kunit_cases SUITE: the test cases (parameters included) the series'
# KUnit suite has, from config/kunit-suite.tsv; kunit-verdict.py holds a
# run to it, so that a case that silently did not run fails.
kunit_cases() {
	local n
	n=$(awk -F'\t' -v s="$1" 'NR > 1 && $1 == s { print $2 }' "$TOP/config/kunit-suite.tsv" 2>/dev/null)
	[[ $n =~ ^[0-9]+$ ]] || die "config/kunit-suite.tsv gives no case count for suite $1"
	echo "$n"
}

# expect NAME WANT_RC WANT_OUT CMD...: one check of the fixture tests
# (check-readers.sh, check-runner.sh): CMD must exit WANT_RC and print
# WANT_OUT (tabs as spaces) on standard output; a mismatch is printed
# and sets FIXTURE_BAD=1.
# shellcheck disable=SC2034 # read by the fixture tests
FIXTURE_BAD=0
expect() {
	local name=$1 want_rc=$2 want=$3 got rc=0
	shift 3
	got=$("$@" 2>/dev/null | tr '\t' ' ') || rc=$?
	if [ "$rc" = "$want_rc" ] && [ "$got" = "$want" ]; then
		printf '%-40s ok\n' "$name"
	else
		printf '%-40s WRONG: exit %s, "%s" (expected exit %s, "%s")\n' "$name" "$rc" "$got" "$want_rc" "$want"
		# shellcheck disable=SC2034
		FIXTURE_BAD=1
	fi
}
