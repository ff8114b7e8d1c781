#!/bin/sh
# Table 1 on Cora and CiteSeer, every method of the paper, 3 seeds, on the
# reference METIS partitions; resumable: run it again and it goes on from
# the results files here. From the repository root: sh results/table1/run.sh
# FedSage+ is the one that needs memory: it peaks at 8.2 GB (RSS) on
# CiteSeer-10 and 11.4 GB on CiteSeer-20. On a smaller machine run
# the other nine methods first with
#   -algos local,fedavg,fedprox,fedper,gcfl,fedgnn,fedgta,fedpub,fedaux
set -eu
bin=$(mktemp -d)/fedaux
go build -buildvcs=auto -o "$bin" .
"$bin" table -datasets cora,citeseer -clients 5,10,20 -seeds 3 -out results/table1
