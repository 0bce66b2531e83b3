# shellcheck shell=bash
# The stress plan, one table (config/stress-plan.tsv: lane, kernel,
# scenarios), read by the host's stress.sh (make stress: the lanes
# faults, cycles and matrix), check-stress.sh (make check: the lane
# quick) and the guest's stress.sh (its default scenarios and its list
# commands). Scenario names are the guest stress.sh's (its header).
STRESS_PLAN=$(dirname "${BASH_SOURCE[0]}")/../../config/stress-plan.tsv
# The row the guest's stress.sh adds to stress.tsv for a splat outside
# every scenario's window (set-up, clean-ups); stress-report.sh skips it
# when it asks which scenario ran last.
# shellcheck disable=SC2034 # used by the scripts that source this file
STRESS_OUTSIDE_ROW="dmesg outside scenarios"
# The lanes of make stress, in order; "quick" is make check's.
# shellcheck disable=SC2034 # used by the scripts that source this file
STRESS_LANES="faults cycles matrix"

# stress_plan_row LANE: "KERNEL SCENARIO..." of LANE; fails, saying why,
# when the table is missing, malformed or has no such lane.
stress_plan_row() {
	awk -F'\t' -v lane="$1" -v f="$STRESS_PLAN" '
		function bad(m) { print f m > "/dev/stderr"; err = 1; exit 2 }
		NR == 1 { if ($0 != "lane\tkernel\tscenarios") bad(": header is not lane, kernel, scenarios"); next }
		NF != 3 || ($2 != "normal" && $2 != "debug") { bad(":" NR ": not LANE, normal|debug, SCENARIOS") }
		$1 == lane { if (found) bad(": lane " lane " twice"); print $2, $3; found = 1 }
		END { if (!err && !found && NR > 0) { print f ": no lane " lane > "/dev/stderr"; exit 2 } }' "$STRESS_PLAN"
}

# stress_lane LANE: the scenarios of LANE, one per line.
stress_lane() {
	local row
	row=$(stress_plan_row "$1") || return 1
	tr ' ' '\n' <<<"${row#* }"
}

# stress_lane_kernel LANE: normal or debug.
stress_lane_kernel() {
	local row
	row=$(stress_plan_row "$1") || return 1
	echo "${row%% *}"
}
