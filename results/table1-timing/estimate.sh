#!/bin/sh
# The whole Table 1's compute time on this machine, estimated from a
# sample made here: for each method, the CPU time of its runs in the
# sample over the CPU time of the same runs (same keys) in the measured
# whole table (results/table1-f32: the eight methods with a float32
# client, in float32; results/table1-f64/gnn-sage: FedGNN and FedSage+ in
# float64), times that method's CPU time over the whole measured table.
# It also counts the sampled runs that give the stored run's validation
# and test accuracy at every round. A later sample directory's run
# replaces an earlier one's of the same key. From the repository root:
#   sh results/table1-timing/estimate.sh SAMPLE_DIR...
# Needs jq.
set -eu
[ $# -gt 0 ] || { echo "usage: estimate.sh SAMPLE_DIR..." >&2; exit 2; }
here=$(mktemp)
trap 'rm -f "$here"' EXIT
for d in "$@"; do cat "$d"/results*.jsonl; done >"$here"
cat results/table1-f32/results*.jsonl results/table1-f64/gnn-sage/results*.jsonl | jq -s -r --slurpfile here "$here" '
  (reduce .[] as $r ({}; .[$r.key] = $r)) as $t
  | (group_by(.algo) | map({key: .[0].algo, value: (map(.cpu_seconds) | add)}) | from_entries) as $table
  | ([reduce $here[] as $r ({}; .[$r.key] = $r) | .[]]
      | map(. as $h | $t[$h.key] as $o
        | {algo, here: .cpu_seconds, there: $o.cpu_seconds, same: ($o.val == $h.val and $o.test == $h.test)})) as $runs
  | ($runs | group_by(.algo) | map({algo: .[0].algo, here: (map(.here) | add), there: (map(.there) | add)})
      | map(. + {ratio: (.here / .there), table: $table[.algo], est: (.here / .there * $table[.algo])})) as $m
  | def r2: (. * 100 | round) / 100;
    (["method", "sample here, s", "sample there, s", "ratio", "table there, s", "table here (est.), s"],
     ["---", "---", "---", "---", "---", "---"],
     ($m[] | [.algo, (.here | floor), (.there | floor), (.ratio | r2), (.table | floor), (.est | floor)]),
     ["all", ($m | map(.here) | add | floor), ($m | map(.there) | add | floor),
      ($m | (map(.here) | add) / (map(.there) | add) | r2), ($m | map(.table) | add | floor), ($m | map(.est) | add | floor)]
     | map(tostring) | "| " + join(" | ") + " |"),
    "",
    "\($runs | length) runs sampled, \($runs | map(select(.same)) | length) with the stored accuracy at every round",
    "the measured table: \($m | map(.table) | add | floor) s of CPU, \($m | map(.table) | add / 7200 | r2) h on two cores",
    "here, estimated: \($m | map(.est) | add | floor) s of CPU, \($m | map(.est) | add / 7200 | r2) h on two cores"'
