#!/usr/bin/env bash
set -u
B=/work/bin/fedaux-shard
F="-datasets cora -clients 5,10 -algos local,fedavg,fedaux -seeds 2"
rm -rf /work/shards; mkdir -p /work/shards
cd /work/shards
echo "== whole $(date -u +%T)"; $B table $F -out whole 2>whole.err
echo "== sequential shards $(date -u +%T)"; for i in 0 1 2; do $B table $F -shard $i/3 -out seq 2>seq-$i.err; done
echo "== concurrent shards $(date -u +%T)"; for i in 0 1 2; do $B table $F -shard $i/3 -out conc 2>conc-$i.err & done; wait
echo "== kill -9 $(date -u +%T)"
$B table $F -shard 0/3 -out kill 2>kill-1.err & pid=$!
while [ "$(cat kill/results-shard-0-of-3.jsonl 2>/dev/null | wc -l)" -lt 2 ]; do sleep 0.5; done
sleep 4; kill -9 $pid; wait $pid 2>/dev/null
echo "lines after kill: $(wc -l < kill/results-shard-0-of-3.jsonl), bytes $(wc -c < kill/results-shard-0-of-3.jsonl)"
$B table $F -shard 0/3 -out kill 2>kill-2.err
for i in 1 2; do $B table $F -shard $i/3 -out kill 2>kill-s$i.err; done
echo "== done $(date -u +%T)"
for d in whole seq conc kill; do grep '^| ' $d/table1.md > $d.rows; done
for d in seq conc kill; do cmp whole.rows $d.rows && echo "$d rows identical to whole"; done
