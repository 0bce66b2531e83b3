#!/usr/bin/env bash
# Verify that every option in the given kconfig fragments is set in .config
# exactly as the fragments ask; olddefconfig silently drops options whose
# dependencies are missing. As in merge_config.sh, a later fragment
# overrides an earlier one (mlx5.config turns ETHERNET back on).
set -euo pipefail
config=$1
shift
declare -A want from
order=()
for frag in "$@"; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) opt=${line%%=*} val=$line ;;
		'# CONFIG_'*' is not set') opt=${line#\# } && opt=${opt%% *} && val="" ;;
		*) continue ;;
		esac
		[ -n "${from[$opt]:-}" ] || order+=("$opt")
		want[$opt]=$val from[$opt]=${frag##*/}
	done <"$frag"
done
bad=0
for opt in "${order[@]}"; do
	have=$(grep -E "^$opt=" "$config" || true)
	if [ "$have" != "${want[$opt]}" ]; then
		echo "error: $opt: ${from[$opt]} wants '${want[$opt]:-unset}', .config has '${have:-unset}'" >&2
		bad=1
	fi
done
exit $bad
