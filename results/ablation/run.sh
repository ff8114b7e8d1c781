#!/bin/sh
# The ablation table (FedAux, FedAux_hard, FedAvg_mask) on Cora-10,
# Computer-10 and Photo-10, 3 seeds, on the reference METIS partitions;
# resumable: run it again and it goes on from the results files here.
# From the repository root: sh results/ablation/run.sh
set -eu
bin=$(mktemp -d)/fedaux
go build -buildvcs=auto -o "$bin" .
"$bin" table -table ablation -datasets cora,computer,photo -clients 10 -seeds 3 -out results/ablation
