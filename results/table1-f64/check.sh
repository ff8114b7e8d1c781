#!/bin/sh
# check.sh: the runs of run.sh paired by store key with the stored float64
# Table 1 (results/table1 for Cora and CiteSeer, results/table1-amazon for
# the Amazon sets): how many give the same validation and test accuracy in
# every round, to the bit, and what the runs made here cost (their
# cpu_seconds), in all and on two cores. From the repository root:
#   sh results/table1-f64/check.sh
set -eu
python3 - <<'PY'
import glob, json
def load(paths):
    runs = {}
    for p in paths:
        for line in open(p):
            r = json.loads(line)
            runs[r["key"]] = r
    return runs
here = load(glob.glob("results/table1-f64/results*.jsonl") + glob.glob("results/table1-f64/gnn-sage/results*.jsonl"))
stored = load(glob.glob("results/table1/results*.jsonl") + glob.glob("results/table1-amazon/results*.jsonl"))
same = [k for k, r in here.items() if k in stored and r["val"] == stored[k]["val"] and r["test"] == stored[k]["test"]]
differ = [k for k, r in here.items() if k in stored and k not in same]
missing = [k for k in here if k not in stored]
print(f"runs made: {len(here)} of 360; paired with the stored table by key: {len(here) - len(missing)}")
print(f"the same validation and test accuracy in every round: {len(same)}; different: {len(differ)}")
for k in sorted(differ):
    r = here[k]
    print(f"  differs: {r['scenario']} {r['algo']} seed {r['seed']}")
for k in sorted(missing):
    r = here[k]
    print(f"  not in the stored table: {r['scenario']} {r['algo']} seed {r['seed']}")
versions = sorted({r.get("version", "?") for r in here.values()})
print(f"code: {', '.join(versions)}")
cpu = sum(r["cpu_seconds"] for r in here.values())
by = {}
for r in here.values():
    by[r["algo"]] = by.get(r["algo"], 0) + r["cpu_seconds"]
print(f"CPU of the runs made: {cpu:.0f} s = {cpu/3600:.2f} h, {cpu/7200:.2f} h on two cores")
print("by method: " + ", ".join(f"{a} {s:.0f} s" for a, s in sorted(by.items(), key=lambda x: -x[1])))
PY
