#!/bin/sh
# The membership inference attack of docs/method.md#membership-inference on Cora-10 (the
# reference METIS partition): FedAux, FedAvg, FED-PUB, FedGNN, FedGTA,
# seeds 0-4; resumable: run it again and it goes on from results.jsonl here.
# From the repository root: sh results/privacy/run.sh
set -eu
bin=$(mktemp -d)/fedaux
go build -buildvcs=auto -o "$bin" .
nice -n 10 "$bin" privacy -preset cora-10 -seeds 5 -workers 1 -out results/privacy
