#!/bin/sh
# SCAFFOLD (examples/scaffold, written against the method API) over the
# whole of the paper's Table 1 grid: Cora, CiteSeer, Amazon-Computer and
# Amazon-Photo at 5, 10 and 20 clients, seeds 42, 43 and 44 (36 runs),
# with the mean local gradient as the control variate
# (-scaffold_update gradients) and with the paper's option II, every
# other setting as results/table1-f64. docs/findings.md Finding 22 had
# it on Cora-10 only.
# Two shards of one worker, one on each core; resumable (run it again).
# Then table1.md: the ten methods of the stored float64 table
# (results/table1-f64, copied into a temporary directory by -reuse, not
# here) with SCAFFOLD's two rows beside them.
# From the repository root: sh results/scaffold-table1/run.sh
set -eu
out=results/scaffold-table1
tmp=$(mktemp -d)
bin=$tmp/fedaux-scaffold
go build -buildvcs=auto -o "$bin" ./examples/scaffold/cmd/fedaux-scaffold
for u in ${UPDATES:-gradients option2}; do
	for s in 0 1; do
		"$bin" table -datasets cora,citeseer,computer,photo -clients 5,10,20 -algos scaffold \
			-scaffold_update $u -seeds 3 -workers 1 -shard $s/2 -out "$out/$u" >"$tmp/$u-$s.log" 2>&1 &
	done
	wait
	"$bin" table -datasets cora,citeseer,computer,photo -clients 5,10,20 -algos scaffold \
		-scaffold_update $u -seeds 3 -out "$out/$u" -render
done
# The combined table: the stored ten methods and SCAFFOLD's two settings.
# Every run is copied (-reuse), none run: results/table1-f64 holds all
# 360 (its check.sh says so); the log's "0 to run" line shows it.
all=local,fedavg,fedprox,fedper,gcfl,fedgnn,fedgta,fedsage_plus,fedpub,fedaux,scaffold
for u in ${UPDATES:-gradients option2}; do
	"$bin" table -datasets cora,citeseer,computer,photo -clients 5,10,20 -algos $all \
		-scaffold_update $u -seeds 3 -out "$tmp/all-$u" \
		-reuse results/table1-f64,results/table1-f64/gnn-sage,"$out/$u" >"$tmp/all-$u.log" 2>&1
	cp "$tmp/all-$u/table1.md" "$out/table1-$u.md"
done
echo "logs in $tmp"
