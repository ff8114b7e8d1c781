#!/bin/sh
# The heterophily table: the ten methods of Table 1 on the five
# heterophilous graphs of Platonov et al. (ICLR 2023) at 10 clients,
# 3 seeds, fedaux's multilevel (METIS-quality) partition of the largest
# connected component, the split 20/40/40 drawn before partitioning.
# Minesweeper and Tolokers report ROC AUC (binary), the others accuracy.
# Resumable: run it again and it goes on from the results files here.
# From the repository root: sh results/heterophily/run.sh
# The data: fedaux data get minesweeper tolokers actor chameleon_filtered squirrel_filtered
# FedSage+ runs last (the method that needs the most memory).
set -eu
bin=$(mktemp -d)/fedaux
go build -buildvcs=auto -o "$bin" .
out=results/heterophily
ds=minesweeper,tolokers,actor,chameleon-filtered,squirrel-filtered
# Each setting's clients: sizes, edge homophily per client and xi.
for d in minesweeper tolokers actor chameleon-filtered squirrel-filtered; do
	"$bin" stats -preset "$d-10" > "$out/stats-$d-10.txt"
done
"$bin" table -datasets "$ds" -clients 10 -seeds 3 -out "$out" \
	-algos local,fedavg,fedprox,fedper,gcfl,fedgnn,fedgta,fedpub,fedaux
"$bin" table -datasets "$ds" -clients 10 -seeds 3 -out "$out" \
	-algos local,fedavg,fedprox,fedper,gcfl,fedgnn,fedgta,fedsage_plus,fedpub,fedaux
