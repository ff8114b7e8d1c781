#!/bin/sh
# console.sh BIN PRESET ROUNDS: the console's median seconds a round over its
# first ROUNDS rounds, read from its run log, driving the real binary in tmux
# (space runs, space pauses, q quits). Example: sh bench/console.sh ./fedaux sbm 10
bin=$1; preset=$2; n=$3; log=/tmp/ct-$$.jsonl
rm -f $log
tmux new-session -d -s ct -x 120 -y 40 "$bin tui -preset $preset -data ${FEDAUX_DATA:-${XDG_DATA_HOME:-$HOME/.local/share}/fedaux} -log $log"
sleep 3
tmux send-keys -t ct ' '
while [ "$(grep -c '"type":"round"' $log 2>/dev/null)" -lt "$n" ]; do sleep 1; done
tmux send-keys -t ct ' '; sleep 1; tmux send-keys -t ct q; sleep 1; tmux kill-session -t ct 2>/dev/null
python3 - "$log" "$n" <<'PY'
import json,sys,statistics
rs=[json.loads(l) for l in open(sys.argv[1]) if '"type":"round"' in l][:int(sys.argv[2])]
print("median %.3f s a round over %d rounds" % (statistics.median(r['seconds'] for r in rs), len(rs)))
PY
rm -f $log
