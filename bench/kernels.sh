#!/usr/bin/env bash
# Compares the kernel and whole-round benchmarks of the working tree with
# those of an earlier commit (default: the commit before the SIMD kernels),
# running the two builds in turn so that both see the same machine load,
# and prints benchstat's comparison. The benchmarks report cpu-ns/op (the
# process's CPU time) beside wall time; on a shared machine compare that.
#
#	bench/kernels.sh [BASE] > bench/results/kernels-before-after.txt
#
# COUNT (default 6) and ROUND_COUNT (default 3) set the repetitions (0
# skips those benchmarks); the round benchmarks need the data
# ($FEDAUX_DATA, else the per-user directory `fedaux data get` fills).
# KEEP=DIR keeps the raw outputs there.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-c5d5e52}
count=${COUNT:-6}
rcount=${ROUND_COUNT:-3}
: "${FEDAUX_DATA:=${XDG_DATA_HOME:-$HOME/.local/share}/fedaux}"
export FEDAUX_DATA
benchstat=${BENCHSTAT:-$(go env GOPATH)/bin/benchstat}
if [ ! -x "$benchstat" ]; then
  go install golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"
  trap 'cp "$work"/before.txt "$work"/after.txt "$KEEP"/ 2>/dev/null; rm -rf "$work"' EXIT
fi

# The base tree, with today's benchmark files (they only call functions the
# base already has) so that both sides run the same benchmarks.
mkdir "$work/base"
git archive "$base" | tar -x -C "$work/base"
mkdir -p "$work/base/internal/cputime"
cp internal/cputime/*.go "$work/base/internal/cputime/"
for f in gnn/kernels_bench_test.go gnn/bench_test.go gnn/hard_test.go sim/mix_bench_test.go presets/round_bench_test.go; do
  cp "$f" "$work/base/$f"
done
for p in gnn sim presets; do
  (cd "$work/base" && go test -c -o "$work/$p-before.test" "./$p")
  go test -c -o "$work/$p-after.test" "./$p"
done

run() { # run PKG PATTERN BENCHTIME COUNT
  for _ in $(seq "$4"); do
    for side in before after; do
      (cd "$1" && "$work/$1-$side.test" -test.run '^$' -test.bench "$2" -test.benchtime "$3") >> "$work/$side.txt"
    done
  done
}
run gnn 'MulSkip|MulTransAddSkip|MulTransB|Adam|Conv1D|ModelEpoch$' 10x "$count"
run sim 'Mix' 10x "$count"
run presets 'Round' 2x "$rcount"

touch "$work/before.txt" "$work/after.txt"
echo "# bench/kernels.sh $base (count $count, rounds $rcount) on $(date -u +%F), $(git rev-parse --short HEAD)"
echo "# before: $base with the same benchmark files; after: the working tree."
echo "# cpu-sec/op is the process's CPU time per op, steadier than sec/op on a shared machine."
echo
"$benchstat" before="$work/before.txt" after="$work/after.txt"
