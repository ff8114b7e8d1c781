#!/bin/sh
# Does FedAux's APV still tell clients apart on heterophilous graphs? For
# each of the five graphs at 10 clients (the heterophily table's
# scenarios), 3 seeds: the Pearson r of every similarity view's
# off-diagonal entries with the ground truth (cosine of the clients'
# mean-pooled embeddings), and Theorem 1's |cos(APV, pc1)|.
# From the repository root: sh results/heterophily/similarity.sh
set -eu
bin=$(mktemp -d)/fedaux
go build -buildvcs=auto -o "$bin" .
for d in minesweeper tolokers actor chameleon-filtered squirrel-filtered; do
	"$bin" similarity -preset "$d-10" -seeds 3 -png=false -out "results/heterophily/similarity/$d-10" > /dev/null
done
