#!/bin/sh
# The APV's transferability (docs/method.md#apv-transferability): FED-PUB, FedGTA and
# FedSage+ beside their +APV variants, 10 clients, seeds 42..44, on the
# reference METIS partitions (fedaux table -table transfer: Cora, CiteSeer,
# PubMed when its file is in the data directory, Amazon-Computer).
# Resumable: run it again and it goes on from the results files here.
# From the repository root:
#   sh results/transfer/run.sh                    # every dataset
#   sh results/transfer/run.sh -datasets cora     # one column (what ran first)
# Further flags go to fedaux table (-workers N, -datasets ...); results do
# not depend on the number of workers.
set -eu
bin=$(mktemp -d)/fedaux
go build -buildvcs=auto -o "$bin" .
exec "$bin" table -table transfer -datasets cora,citeseer,computer -seeds 3 -out results/transfer "$@"
