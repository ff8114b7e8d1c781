#!/bin/sh
# compare.sh: Table 1 in float32 (this directory) against the same runs in
# float64 (results/table1 for Cora and CiteSeer, results/table1-amazon for
# the Amazon sets), paired by scenario, method and seed, written to
# results/table1-f32/precision.md. Also the compute time of the float32
# runs from their stores. From the repository root, after run.sh:
#   sh results/table1-f32/compare.sh
set -eu
python3 - > results/table1-f32/precision.md <<'PY'
import glob, json, statistics
def load(paths):
    runs = {}
    for p in paths:
        for line in open(p):
            r = json.loads(line)
            runs[(r["scenario"], r["algo"], r["seed"])] = r
    return runs
f32 = load(glob.glob("results/table1-f32/results*.jsonl"))
f64 = load(glob.glob("results/table1/results*.jsonl") + glob.glob("results/table1-amazon/results*.jsonl"))
pairs = [(k, f64[k], f32[k]) for k in sorted(f32) if k in f64 and f32[k]["settings"].get("precision") == "f32"]
last = lambda r: statistics.mean(r["test"][-10:])
print("# Table 1 in float32 against float64\n")
print("Test accuracy (%) at the best validation round, paired by scenario, method")
print("and seed (same data, partition, initialisation and dropout draws):")
print("float32 runs from `results/table1-f32`, float64 ones from `results/table1`")
print("and `results/table1-amazon`. Written by `sh results/table1-f32/compare.sh`.\n")
d = [y["test_at_best_val"] - x["test_at_best_val"] for _, x, y in pairs]
l = [last(y) - last(x) for _, x, y in pairs]
n = len(pairs)
print(f"- pairs: {n} of 288")
if n:
    print(f"- f32 - f64 at the best validation round: mean {statistics.mean(d):+.3f}, "
          f"mean absolute {statistics.mean(abs(v) for v in d):.3f}, largest absolute {max(abs(v) for v in d):.2f}; "
          f"{sum(abs(v) <= 0.5 for v in d)} of {n} within 0.5, {sum(v == 0 for v in d)} identical")
    print(f"- f32 - f64, mean test accuracy over the last 10 rounds: mean {statistics.mean(l):+.3f}, "
          f"largest absolute {max(abs(v) for v in l):.2f}; {sum(abs(v) <= 0.5 for v in l)} of {n} within 0.5")
    same = sum(x["best_round"] == y["best_round"] for _, x, y in pairs)
    print(f"- the same best validation round at both precisions: {same} of {n}")
cpu = sum(r["cpu_seconds"] for r in f32.values())
print(f"- compute of the {len(f32)} float32 runs: {cpu:.0f} s of CPU ({cpu/3600:.2f} h; {cpu/7200:.2f} h on 2 cores)\n")
print("## Per cell: mean ± std over the seeds\n")
print("| scenario | method | seeds | f64 | f32 | mean of f32 - f64 | largest abs | last 10: mean of f32 - f64 |")
print("|---|---|---|---|---|---|---|---|")
cells = {}
for (s, a, seed), x, y in pairs:
    cells.setdefault((s, a), []).append((x, y))
sd = lambda z: statistics.stdev(z) if len(z) > 1 else 0.0
for (s, a), v in sorted(cells.items()):
    f = [x["test_at_best_val"] for x, _ in v]
    g = [y["test_at_best_val"] for _, y in v]
    dd = [b - c for b, c in zip(g, f)]
    ll = [last(y) - last(x) for x, y in v]
    print(f"| {s} | {a} | {len(v)} | {statistics.mean(f):.2f} ± {sd(f):.2f} | {statistics.mean(g):.2f} ± {sd(g):.2f} | "
          f"{statistics.mean(dd):+.2f} | {max(abs(t) for t in dd):.2f} | {statistics.mean(ll):+.2f} |")
PY
echo "wrote results/table1-f32/precision.md"
