#!/bin/sh
# cost.sh: the compute of Table 1 at the speed of this study: the float32
# runs here and the float64 FedGNN and FedSage+ runs in f64/ as measured;
# each FedGNN or FedSage+ run not made yet estimated from its 10-client
# run in results/table1-timing/after-3b8d716 times the ratio of its number
# of clients to 10 measured for the same method in f64/ (1 where none);
# the table all in float64, estimated; and the runs of sage-batched/.
# From the repository root: sh results/table1-f32/cost.sh
set -eu
python3 - <<'PY'
import json, glob, os, statistics
runs = {}
for p in glob.glob('results/table1-f32/f64/results*.jsonl'):
    for l in open(p):
        r = json.loads(l)
        runs[(r['labels']['dataset'], r['algo'], int(r['labels']['clients']), r['seed'])] = r['cpu_seconds']
# the 10-client seed-42 sample at 3b8d716 (results/table1-timing/after-3b8d716)
sample = {}
for l in open('results/table1-timing/after-3b8d716/results.jsonl'):
    r = json.loads(l)
    if r['algo'] in ('fedgnn', 'fedsage_plus'):
        sample[(r['labels']['dataset'], r['algo'])] = r['cpu_seconds']
measured = sum(runs.values())
est = 0.0
for (d, a), s10 in sample.items():
    for c in (5, 10, 20):
        for seed in (42, 43, 44):
            if (d, a, c, seed) in runs:
                continue
            same = [v for (d2, a2, c2, _), v in runs.items() if (d2, a2, c2) == (d, a, c)]
            if same:
                est += statistics.mean(same); continue
            # ratio of c clients to 10 clients for this algorithm, where both are measured
            ratios = []
            for (d2, a2, c2, s2), v in runs.items():
                if a2 == a and c2 == c and (d2, a2, 10, s2) in runs:
                    ratios.append(v / runs[(d2, a2, 10, s2)])
            est += s10 * (statistics.mean(ratios) if ratios else 1)
print(f"measured {len(runs)} runs, {measured:.0f} s; the other {72-len(runs)} estimated {est:.0f} s; FedGNN and FedSage+ {measured+est:.0f} s")
f32 = sum(json.loads(l)["cpu_seconds"] for p in glob.glob("results/table1-f32/results*.jsonl") for l in open(p))
tot = f32 + measured + est
print(f"float32 part {f32:.0f} s; whole table {tot:.0f} s of CPU = {tot/3600:.2f} h, {tot/7200:.2f} h on two cores")
# All in float64: the eight methods' float32 runs times the ratio of their
# float64 to float32 CPU in the two 32-run samples of the same code
# (results/table1-timing: after-3b8d716, after-21f31e2-f32), an estimate.
def cpu(p, keep):
    return sum(r["cpu_seconds"] for r in map(json.loads, open(p)) if keep(r))
s64 = cpu("results/table1-timing/after-3b8d716/results.jsonl", lambda r: r["algo"] not in ("fedgnn", "fedsage_plus"))
s32 = cpu("results/table1-timing/after-21f31e2-f32/results.jsonl", lambda r: True)
all64 = f32 * s64 / s32 + measured + est
print(f"all in float64 (the eight estimated, {s64:.0f}/{s32:.0f} = {s64/s32:.2f} x their float32 runs): {all64:.0f} s = {all64/7200:.2f} h on two cores")
# sage-batched/: FedSage+ on Cora and CiteSeer again with later code, paired
# with f64/ by key: the same bits, and what the table costs with them.
if os.path.exists("results/table1-f32/sage-batched/results.jsonl"):
    old = {}
    for p in glob.glob("results/table1-f32/f64/results*.jsonl"):
        for r in map(json.loads, open(p)):
            old[r["key"]] = r
    new = [json.loads(l) for l in open("results/table1-f32/sage-batched/results.jsonl")]
    same = sum(old[r["key"]]["val"] == r["val"] and old[r["key"]]["test"] == r["test"] for r in new)
    was, now = sum(old[r["key"]]["cpu_seconds"] for r in new), sum(r["cpu_seconds"] for r in new)
    t = tot - was + now
    print(f"sage-batched: {same} of {len(new)} runs the same bits, {now:.0f} s of CPU against {was:.0f}; the whole table with them {t:.0f} s = {t/7200:.2f} h on two cores")
PY
