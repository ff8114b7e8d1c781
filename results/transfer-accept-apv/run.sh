#!/bin/sh
# Ablation of FedGTA+APV's accept set (docs/method.md#apv-transferability):
# S_k from the APV cosine (-gta_accept apv) instead of FedGTA's moment
# cosine, Cora-10 and CiteSeer-10, seeds 42..44. The plain FedGTA rows are
# Table 1's runs and the other +APV row the transfer table's, copied by
# -reuse; only the six fedgta_apv runs with -gta_accept apv run here.
# From the repository root: sh results/transfer-accept-apv/run.sh
set -eu
bin=$(mktemp -d)/fedaux
go build -buildvcs=auto -o "$bin" .
exec "$bin" table -table transfer -algos fedgta,fedgta_apv -datasets cora,citeseer -gta_accept apv -seeds 3 -out results/transfer-accept-apv -reuse results/table1 "$@"
