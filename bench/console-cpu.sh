#!/bin/sh
# console-cpu.sh BIN PRESET ROUNDS: bench/console.sh (the median seconds a
# round, from the run log), plus the CPU seconds the console process used and
# the rounds it had logged by then: CPU time depends little on what else the
# shared machine runs. Example: sh bench/console-cpu.sh ./fedaux sbm 10
bin=$1; preset=$2; n=$3; log=/tmp/ctcpu-$$.jsonl
rm -f $log
tmux new-session -d -s ctcpu -x 120 -y 40 "$bin tui -preset $preset -data ${FEDAUX_DATA:-${XDG_DATA_HOME:-$HOME/.local/share}/fedaux} -log $log"
sleep 3
pid=$(tmux list-panes -t ctcpu -F '#{pane_pid}')
tmux send-keys -t ctcpu ' '
while [ "$(grep -c '"type":"round"' $log 2>/dev/null)" -lt "$n" ]; do sleep 1; done
tmux send-keys -t ctcpu ' '
ticks=$(awk '{print $14+$15}' /proc/$pid/stat); comm=$(cat /proc/$pid/comm)
sleep 1; tmux send-keys -t ctcpu q; sleep 1; tmux kill-session -t ctcpu 2>/dev/null
python3 - "$log" "$n" "$ticks" "$comm" <<'PY'
import json,sys,statistics,os
rs=[json.loads(l) for l in open(sys.argv[1]) if '"type":"round"' in l]
print("median %.3f s a round over %d rounds; process %s cpu %.2f s for %d rounds logged" % (statistics.median(r['seconds'] for r in rs[:int(sys.argv[2])]), int(sys.argv[2]), sys.argv[4], int(sys.argv[3])/os.sysconf('SC_CLK_TCK'), len(rs)))
PY
rm -f $log
