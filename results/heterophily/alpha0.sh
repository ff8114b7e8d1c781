#!/bin/sh
# Does the similarity-weighted mixing matter on heterophilous graphs?
# FedAux against its own client with uniform server weights (alpha = 0,
# the ablation's fedavg_mask), same scenarios and seeds as the heterophily
# table, whose FedAux runs are reused. Then FedSage+ without its generator
# phase (gen_rounds 0: FedAvg of GraphSAGE on the unmended subgraphs), to
# tell the architecture's share of FedSage+'s lead from the generator's.
# From the repository root: sh results/heterophily/alpha0.sh
set -eu
bin=$(mktemp -d)/fedaux
go build -buildvcs=auto -o "$bin" .
"$bin" table -datasets minesweeper,tolokers,actor,chameleon-filtered,squirrel-filtered -clients 10 -seeds 3 \
	-algos fedaux,fedavg_mask -out results/heterophily/alpha0 -reuse results/heterophily
"$bin" table -datasets minesweeper,tolokers,actor,chameleon-filtered,squirrel-filtered -clients 10 -seeds 3 \
	-algos fedsage_plus -gen_rounds 0 -out results/heterophily/sage-no-gen
