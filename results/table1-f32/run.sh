#!/bin/sh
# Table 1 as fast as this machine runs it: the eight methods of the
# paper's Table 1 that have a float32 client (all but FedGNN and
# FedSage+) at -precision f32 (288 runs, results here), and FedGNN and
# FedSage+, which have none, in float64 (72 runs, in f64/), on Cora,
# CiteSeer, Amazon-Computer and Amazon-Photo at 5, 10 and 20 clients,
# 3 seeds. Each part runs in shards of one worker, one on each core at a
# time, so that both cores are busy and each run's cpu_seconds is its
# cost; logs go to $TMPDIR. The float64 Table 1 is results/table1 and
# results/table1-amazon: the float32 runs have store keys of their own
# (precision=f32), and the float64 runs here have the same keys and, the
# numbers being unchanged, the same results as those.
# Resumable: run it again and it goes on from the results files here.
# From the repository root: sh results/table1-f32/run.sh
set -eu
out=results/table1-f32
. results/shards.sh
shards 2 "$out" -precision f32 -algos local,fedavg,fedprox,fedper,gcfl,fedgta,fedpub,fedaux
# Four shards, two on each core in turn: shards alternate FedGNN and
# FedSage+, whose runs cost far more, so shards 0 and 1 on one core and
# 2 and 3 on the other share the work evenly (two shards split it by method).
shards 4 "$out/f64" -algos fedgnn,fedsage_plus
echo "logs in $logs"
