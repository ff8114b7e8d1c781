#!/bin/sh
# The float32 equivalence table: the eight methods of Table 1 that have a
# float32 client (all but FedGNN and FedSage+) on Cora-10,
# CiteSeer-10 and Computer-10 (the reference METIS partitions), 3 seeds,
# at -precision f64 and f32. The float64 runs are those of results/table1
# and results/table1-amazon (reused, read only, by their store keys,
# which the precision setting leaves unchanged at f64); the float32 runs
# have keys of their own (precision=f32).
# Resumable: run it again and it goes on from the results files here.
# From the repository root: sh results/precision/run.sh
set -eu
bin=$(mktemp -d)/fedaux
go build -buildvcs=auto -o "$bin" .
out=results/precision
algos=fedavg,fedaux,local,fedprox,fedper,gcfl,fedgta,fedpub
for p in f64 f32; do
	nice "$bin" table -datasets cora,citeseer -clients 10 -seeds 3 -algos "$algos" \
		-precision "$p" -reuse results/table1 -out "$out/$p"
	nice "$bin" table -datasets computer -clients 10 -seeds 3 -algos "$algos" \
		-precision "$p" -reuse results/table1-amazon -out "$out/$p-amazon"
done
# The paired comparison: each seed's test accuracy at the best
# validation round at both precisions, and their difference.
python3 - "$out" > "$out/precision.md" <<'PY'
import json, statistics, sys
out = sys.argv[1]
runs = {}
for p in ("f64", "f32"):
    for d in (p, p + "-amazon"):
        try:
            lines = open(f"{out}/{d}/results.jsonl").readlines()
        except FileNotFoundError:
            continue
        for line in lines:
            r = json.loads(line)
            runs[(r["scenario"], r["algo"], r["seed"], p)] = r
cells = sorted({k[:3] for k in runs})
print("# float32 against float64: test accuracy (%) at the best validation round\n")
print("Paired by seed (same data, partition, initialisation and dropout draws);")
print("f32 is `-precision f32` (the GCN layers, their Adam steps and the heads' products in")
print("float32; float32 numerics version 2, `sim.NumericsVersion32`).\n")
print("The last two columns are less sensitive to which round wins the")
print("validation: the mean test accuracy over the last 10 rounds at each precision.\n")
print("| scenario | method | seed | f64 | f32 | f32 - f64 | f64 best round | f32 best round | f64 last 10 | f32 last 10 |")
print("|---|---|---|---|---|---|---|---|---|---|")
diffs = {}
for s, a, seed in cells:
    x, y = runs.get((s, a, seed, "f64")), runs.get((s, a, seed, "f32"))
    if x is None or y is None:
        continue
    d = y["test_at_best_val"] - x["test_at_best_val"]
    lx, ly = statistics.mean(x["test"][-10:]), statistics.mean(y["test"][-10:])
    diffs.setdefault((s, a), []).append((x["test_at_best_val"], y["test_at_best_val"], d, ly - lx))
    print(f"| {s} | {a} | {seed} | {x['test_at_best_val']:.2f} | {y['test_at_best_val']:.2f} | {d:+.2f} | "
          f"{x['best_round']} | {y['best_round']} | {lx:.2f} | {ly:.2f} |")
print("\n| scenario | method | f64 mean ± std | f32 mean ± std | mean of f32 - f64 | largest abs difference | mean of f32 - f64, last 10 rounds |")
print("|---|---|---|---|---|---|---|")
for (s, a), v in sorted(diffs.items()):
    f, g, d, l = [t[0] for t in v], [t[1] for t in v], [t[2] for t in v], [t[3] for t in v]
    sd = lambda z: statistics.stdev(z) if len(z) > 1 else 0.0
    print(f"| {s} | {a} | {statistics.mean(f):.2f} ± {sd(f):.2f} | {statistics.mean(g):.2f} ± {sd(g):.2f} | "
          f"{statistics.mean(d):+.2f} | {max(abs(t) for t in d):.2f} | {statistics.mean(l):+.2f} |")
PY
