#!/bin/sh
# Per dataset and method, the CPU seconds (and wall seconds) of each label's
# runs, side by side: sh results/table1-timing/summary.sh LABEL...
# Needs jq.
set -eu
cd "$(dirname "$0")"
for label in "$@"; do
	jq -r --arg l "$label" '[$l, (.scenario|split("-")[0]), .algo, (.cpu_seconds // 0), .seconds] | @tsv' "$label"/results*.jsonl
done | awk -F'\t' '
{ cpu[$2" "$3, $1] = $4; wall[$2" "$3, $1] = $5; rows[$2" "$3] = 1; labels[$1] = 1; tot[$1] += $4; totw[$1] += $5 }
END {
	n = 0; for (l in labels) order[++n] = l
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (order[j] < order[i]) { t = order[i]; order[i] = order[j]; order[j] = t }
	printf "%-24s", "dataset method"; for (i = 1; i <= n; i++) printf " %24s", order[i] " cpu (wall)"; printf "\n"
	m = 0; for (r in rows) keys[++m] = r
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (keys[j] < keys[i]) { t = keys[i]; keys[i] = keys[j]; keys[j] = t }
	for (k = 1; k <= m; k++) {
		printf "%-24s", keys[k]
		for (i = 1; i <= n; i++) printf " %15.1f (%6.1f)", cpu[keys[k], order[i]], wall[keys[k], order[i]]
		printf "\n"
	}
	printf "%-24s", "total"; for (i = 1; i <= n; i++) printf " %15.1f (%6.1f)", tot[order[i]], totw[order[i]]; printf "\n"
}'
