#!/usr/bin/env bash
B=/work/bin/fedaux
for ds in cora citeseer computer photo; do for k in 5 10 20; do
  for mode in ref louvain; do
    out=$($B stats -preset $ds-$k -partition $mode 2>&1)
    head=$(echo "$out" | head -1); xi=$(echo "$out" | tail -1 | sed 's/.*xi //')
    cut=$(echo "$head" | sed -n 's/.*edge cut \([0-9]*\).*/\1/p'); imb=$(echo "$head" | sed -n 's/.*imbalance \([0-9.]*\).*/\1/p')
    echo "$ds $k $mode cut=$cut imbalance=$imb xi=$xi"
  done
done; done
