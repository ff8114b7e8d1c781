#!/bin/sh
# Table 1 on Cora and CiteSeer, every method of the paper, 3 seeds, on the
# reference METIS partitions; resumable: run it again and it goes on from
# the results files here. From the repository root: sh results/table1/run.sh
# FedSage+ on CiteSeer needs about 18 GB (10 clients) and more with 20:
# until its memory is fixed, run the other nine methods with
#   -algos local,fedavg,fedprox,fedper,gcfl,fedgnn,fedgta,fedpub,fedaux
set -eu
go build -o /tmp/fedaux-t1 .
/tmp/fedaux-t1 table -datasets cora,citeseer -clients 5,10,20 -seeds 3 -out results/table1
