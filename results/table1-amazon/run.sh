#!/bin/sh
# Table 1 on Amazon-Computer and Amazon-Photo, every method of the paper,
# 3 seeds, on the reference METIS partitions (200 rounds x 2 epochs, as the
# presets); resumable: run it again and it goes on from the results files
# here. From the repository root: sh results/table1-amazon/run.sh
# The 10-client columns come first; CLIENTS=5,10,20 adds the others.
# FedAux's runs on 10 clients are the ablation table's, copied by -reuse.
set -eu
bin=$(mktemp -d)/fedaux
go build -buildvcs=auto -o "$bin" .
"$bin" table -datasets computer,photo -clients "${CLIENTS:-10}" -seeds 3 -out results/table1-amazon -reuse results/ablation
