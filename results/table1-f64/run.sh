#!/bin/sh
# The paper's Table 1 all in float64, made again with one commit's code:
# the ten methods on Cora, CiteSeer, Amazon-Computer and Amazon-Photo at
# 5, 10 and 20 clients, seeds 42, 43 and 44 (360 runs), every setting as
# results/table1 and results/table1-amazon. Two things come of it: what
# the whole float64 table costs this machine (each run's cpu_seconds),
# and whether the stored float64 table is what this code computes, run
# by run (check.sh). Each part runs in shards of one worker, one on each
# core at a time, as results/table1-f32 does; logs go to $TMPDIR.
# Resumable: run it again and it goes on from the results files here.
# From the repository root: sh results/table1-f64/run.sh
set -eu
out=results/table1-f64
. results/shards.sh
shards 2 "$out" -precision f64 -algos local,fedavg,fedprox,fedper,gcfl,fedgta,fedpub,fedaux
# Four shards, two on each core in turn: shards alternate FedGNN and
# FedSage+, whose runs cost far more, so that each core gets half of both.
shards 4 "$out/gnn-sage" -precision f64 -algos fedgnn,fedsage_plus
echo "logs in $logs"
