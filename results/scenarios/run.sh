#!/bin/sh
# The scenario-file figures of README "Scenarios of your own" (issue 13).
# Run from the repository root: sh results/scenarios/run.sh
# Resumable: every study keeps its results under results/scenarios/.
set -eu
data=${FEDAUX_DATA:-${XDG_DATA_HOME:-$HOME/.local/share}/fedaux}
go build -o /tmp/fedaux-scen .
fx=/tmp/fedaux-scen
out=results/scenarios

# 1. Two SBMs from a file and from -set: the paper's variant (weights from the
#    APV) and -sim pc1, 100 rounds, seeds 42-44, ARI at rounds 10 and 100.
sim() { $fx similarity -seeds 3 -at 1,10,50,100 -variants 'sim=apv;sim=pc1' -png=false "$@"; }
sim -scenario scenarios/sbm-2x10.toml -out $out/sbm-2x10-file
sim -preset sbm -set groups=2 -set classes=2 -set intra=0.15,0.75 -out $out/sbm-2x10-set
sim -scenario scenarios/sbm-10x2.toml -out $out/sbm-10x2-file
sim -preset sbm -set groups=10 -set classes=10 -set intra=0.075,0.15,0.225,0.3,0.375,0.45,0.525,0.6,0.675,0.75 -out $out/sbm-10x2-set

# 2. A graph by path: cora.npz copied as citations.npz, Louvain K=10 and
#    label skew beta=0.5: statistics, then FedAux, FedAvg and Local, 3 seeds.
cp "$data/cora.npz" $out/by-path/citations.npz
for s in louvain labelskew; do
	$fx stats -scenario $out/by-path/citations-$s.toml > $out/by-path/stats-$s.txt
done
$fx table -scenario $out/by-path/citations-louvain.toml,$out/by-path/citations-labelskew.toml \
	-algos local,fedavg,fedaux -seeds 3 -out $out/by-path
