#!/bin/sh
# compare.sh: fedaux against the plain-PyTorch CPU peer (../shared/peers),
# side by side on one machine: wall time and peak RSS (/usr/bin/time -v) of
#   cora-10-ref, 100 rounds, seed 0 (the reference partition, both programs)
#   computer-10, 20 rounds x 2 epochs, seed 0 (METIS partition, both programs)
# Run it from the repository root on an idle machine:
#   sh bench/compare.sh [OUTDIR]
# PRECISION=f32 runs fedaux with -precision f32 (default f64; the peer
# computes in float32 either way).
# It installs what the peer needs (Debian's python3-torch, python3-scipy,
# metis and time) when missing, and prints one line per run and the ratios.
set -eu
peers=${FEDAUX_PEERS:-../shared/peers}
data=${FEDAUX_DATA:-../shared/data}
out=${1:-bench/results/compare-$(date -u +%Y%m%dT%H%M%SZ)}
prec=${PRECISION:-f64}
mkdir -p "$out"

if ! /usr/bin/python3 -c 'import torch, scipy' 2>/dev/null || ! command -v gpmetis >/dev/null || [ ! -x /usr/bin/time ]; then
	echo "installing python3-torch python3-scipy metis time (Debian)" >&2
	SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq && $SUDO apt-get install -y -qq python3-torch python3-scipy metis time >/dev/null
fi
bin=$(mktemp -d)/fedaux
go build -o "$bin" .

# measure NAME CMD...: run CMD under /usr/bin/time -v, keep its output, print
# "NAME wall_s peak_mib".
measure() {
	name=$1; shift
	/usr/bin/time -v -o "$out/$name.time" "$@" >"$out/$name.out" 2>"$out/$name.err"
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$out/$name.time")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$out/$name.time")
	echo "$name $wall $rss" | tee -a "$out/summary.txt"
}

: >"$out/summary.txt"
# The ratios depend on the host's CPU (they moved from 3.8x to 2.2x between
# two machines of the same kind): keep what it was.
{ lscpu 2>/dev/null | grep -E '^(Model name|CPU\(s\)|Flags)' | cut -c1-300; uptime; echo "fedaux -precision $prec"; } >"$out/machine.txt"
measure fedaux-cora10 "$bin" run -preset cora-10-ref -data "$data" -rounds 100 -seed 0 -precision "$prec" -json
measure torch-cora10 /usr/bin/python3 "$peers/torch_fedaux.py" --data-dir "$data" --data cora --clients 10 \
	--partition fixture --rounds 100 --algo fedaux --seed 0 --threads 2 --quiet
measure fedaux-computer10 "$bin" run -preset computer-10 -data "$data" -rounds 20 -epochs 2 -seed 0 -precision "$prec" -json
measure torch-computer10 /usr/bin/python3 "$peers/torch_fedaux.py" --data-dir "$data" --data computers --clients 10 \
	--partition metis --rounds 20 --epochs 2 --algo fedaux --seed 0 --threads 2 --quiet

awk '{w[$1]=$2; r[$1]=$3}
END {
	for (d in w) if (d ~ /^fedaux-/) {
		t = d; sub(/^fedaux-/, "torch-", t)
		printf "%s: fedaux %.1f s, %d MiB; torch %.1f s, %d MiB; fedaux is %.2fx faster, peak RSS %.2fx the peer'"'"'s\n",
			substr(d, 8), w[d], r[d], w[t], r[t], w[t]/w[d], r[d]/r[t]
	}
}' "$out/summary.txt" | sort | tee "$out/ratios.txt"
