#!/usr/bin/env bash
# Verify that every option in the given kconfig fragments is set in .config
# exactly as the fragment asks; olddefconfig silently drops options whose
# dependencies are missing.
set -euo pipefail
config=$1
shift
bad=0
for frag in "$@"; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) want=$line; opt=${line%%=*} ;;
		'# CONFIG_'*' is not set') opt=${line#\# }; opt=${opt%% *}; want="" ;;
		*) continue ;;
		esac
		have=$(grep -E "^$opt=" "$config" || true)
		if [ "$have" != "$want" ]; then
			echo "error: $opt: ${frag##*/} wants '${want:-unset}', .config has '${have:-unset}'" >&2
			bad=1
		fi
	done <"$frag"
done
exit $bad
