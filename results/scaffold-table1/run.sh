#!/bin/sh
# SCAFFOLD (examples/scaffold, written against the method API) over the
# whole of the paper's Table 1 grid: Cora, CiteSeer, Amazon-Computer and
# Amazon-Photo at 5, 10 and 20 clients, seeds 42, 43 and 44 (36 runs),
# with the mean local gradient as the control variate
# (-scaffold_update gradients) and with the paper's option II, every
# other setting as results/table1-f64. docs/findings.md Finding 22 had
# it on Cora-10 only.
# Each update: two shards of one worker, one on each core, into
# $out/UPDATE (resumable: run it again); then table1-UPDATE.md, the ten
# methods of the stored float64 table beside SCAFFOLD's row, rendered in
# a temporary directory into which -reuse copies every run (none is run:
# results/table1-f64 holds all 360, and the log's "0 to run" line shows
# it), so that they are not stored twice.
# From the repository root: sh results/scaffold-table1/run.sh
# (UPDATES=gradients for one of the two).
set -eu
out=results/scaffold-table1
pkg=./examples/scaffold/cmd/fedaux-scaffold
. results/shards.sh
all=local,fedavg,fedprox,fedper,gcfl,fedgnn,fedgta,fedsage_plus,fedpub,fedaux,scaffold
for u in ${UPDATES:-gradients option2}; do
	shards 2 "$out/$u" -algos scaffold -scaffold_update "$u"
	"$bin" table -algos $all -scaffold_update "$u" -seeds 3 -out "$logs/all-$u" \
		-reuse results/table1-f64,results/table1-f64/gnn-sage,"$out/$u" >"$logs/all-$u.log" 2>&1
	cp "$logs/all-$u/table1.md" "$out/table1-$u.md"
done
echo "logs in $logs"
