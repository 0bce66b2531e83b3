# shellcheck shell=bash
# Scenario files (tests/GROUP/NNN, one scenario a file, as in blktests):
# how a header is read and how a name finds its file. Sourced by the
# host's runner (scripts/host/run-scenarios.sh), the guest's stress runner
# (scripts/guest/stress.sh) and their fixture tests (check-runner.sh), so
# that host and guest read the files one way.
#
# A header sets NAME, DESCRIPTION, LANES, KERNELS, TIMEOUT, RECOVERY and
# EXPECT as plain assignments (VAR=word or VAR="words"), before any code.
SCENARIO_FIELDS="NAME DESCRIPTION LANES KERNELS TIMEOUT RECOVERY EXPECT"

# scenario_header FILE VAR: the value FILE's header gives VAR, read
# without running the file.
scenario_header() {
	sed -nE "s/^$2=\"?([^\"]*)\"?\$/\\1/p" "$1" | head -1
}

# scenario_files DIR: DIR's scenario files (NNN) in order, one per line;
# fails naming the file and field when a header lacks a field, or when
# DIR holds none.
scenario_files() {
	local f=("$1"/[0-9][0-9][0-9])
	[ -f "${f[0]}" ] || { echo "${1##*/}: no scenario file (NNN)" >&2; return 1; }
	awk -v fields="$SCENARIO_FIELDS" -v dir="${1%/*}/" '
		function done_file() {
			if (FNR_FILE == "") return
			for (k = 1; k <= nf; k++) if (!(want[k] in got)) {
				sub("^" dir, "", FNR_FILE); print FNR_FILE ": no " want[k] "= in its header" > "/dev/stderr"; bad = 1; exit 1
			}
			print FNR_FILE
		}
		BEGIN { nf = split(fields, want, " ") }
		FNR == 1 { done_file(); FNR_FILE = FILENAME; delete got }
		match($0, /^[A-Z]+="?[^"]/) { v = substr($0, 1, index($0, "=") - 1); got[v] = 1 }
		END { if (!bad) done_file() }' "${f[@]}"
}

# scenario_resolve DIR INSTANCE: the file of DIR whose NAME is INSTANCE,
# or a prefix of it followed by "-" (the rest are the instance's
# parameters: reset-20 is NAME reset with "20"; the longest NAME wins);
# prints "FILE<TAB>PARAMETERS". Fails when no file matches.
scenario_resolve() {
	local files
	files=$(scenario_files "$1") || return 1
	# shellcheck disable=SC2086 # one file per word (paths without blanks)
	awk -v inst="$2" '
		FNR == 1 { name = "" }
		name == "" && /^NAME=/ {
			name = $0; sub(/^NAME="?/, "", name); sub(/"$/, "", name)
			if ((inst == name || index(inst, name "-") == 1) && length(name) > blen) {
				best = FILENAME; blen = length(name); rest = substr(inst, blen + 2)
			}
		}
		END { if (best == "") exit 1; print best "\t" rest }' $files ||
		{ echo "no scenario file in ${1##*/} for '$2'" >&2; return 1; }
}
