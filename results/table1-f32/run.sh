#!/bin/sh
# Table 1 in float32: the eight methods of the paper's Table 1 that have a
# float32 client (all but FedGNN and FedSage+), on Cora, CiteSeer,
# Amazon-Computer and Amazon-Photo at 5, 10 and 20 clients, 3 seeds, at
# -precision f32 (288 runs), as two shards of one worker each, so that
# both cores are busy and each run's cpu_seconds is its cost. The
# float64 table of the same runs is results/table1 and
# results/table1-amazon; their store keys differ (precision=f32).
# Resumable: run it again and it goes on from the results files here.
# From the repository root: sh results/table1-f32/run.sh
set -eu
bin=$(mktemp -d)/fedaux
go build -buildvcs=auto -o "$bin" .
out=results/table1-f32
algos=local,fedavg,fedprox,fedper,gcfl,fedgta,fedpub,fedaux
for s in 0 1; do
	"$bin" table -precision f32 -algos "$algos" -seeds 3 -workers 1 -shard "$s/2" -out "$out" \
		>"$out/shard-$s.log" 2>&1 &
done
wait
"$bin" table -precision f32 -algos "$algos" -seeds 3 -out "$out" -render
