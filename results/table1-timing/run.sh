#!/bin/sh
# What Table 1 costs the machine: a sample of it (seed 42, 10 clients,
# all ten methods on Cora, CiteSeer, Amazon-Computer and Amazon-Photo:
# 40 of the 360 runs) run one at a time with one worker, so that each
# run's wall time is its time on one core and its cpu_seconds what it
# costs. From the repository root:
#   sh results/table1-timing/run.sh LABEL      # results in results/table1-timing/LABEL
# Run it for two commits and compare the compute lines of LABEL/table1.md.
set -eu
label=${1:?usage: run.sh LABEL}
bin=$(mktemp -d)/fedaux
go build -buildvcs=auto -o "$bin" .
# PRECISION=f32 runs the eight methods that have a float32 client (all
# but FedGNN and FedSage+) at -precision f32.
set -- -precision "${PRECISION:-f64}"
if [ "${PRECISION:-f64}" = f32 ]; then
	set -- "$@" -algos fedavg,fedaux,local,fedprox,fedper,gcfl,fedgta,fedpub
fi
"$bin" table -datasets cora,citeseer,computer,photo -clients 10 -seeds 1 -workers 1 "$@" \
	-out "results/table1-timing/$label"
