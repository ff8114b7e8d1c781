#!/bin/sh
# compare.sh: fedaux against the plain-PyTorch CPU peer ($FEDAUX_PEERS/torch_fedaux.py),
# side by side on one machine: wall time and peak RSS (/usr/bin/time -v) of
#   cora-10-ref, 100 rounds, seed 0 (the reference partition, both programs)
#   computer-10, 20 rounds x 2 epochs, seed 0 (METIS partition, both programs)
# Run it from the repository root on an idle machine:
#   sh bench/compare.sh [OUTDIR]
# PRECISION=f32 runs fedaux with -precision f32 (default f64; the peer
# computes in float32 either way). REPEAT=N (default 1) runs each pair N
# times, fedaux then the peer, and compares the medians of the wall times
# (the peer's own time moves by up to a third between runs). Before each
# fedaux run it measures the host's contention (bench/contention: how much
# two cores slow each other down through the third-level cache), whose
# phases move fedaux's float64 times (docs/performance.md); ratios.txt
# lists it.
# It installs what the peer needs (Debian's python3-torch, python3-scipy,
# metis and time) when missing, and prints one line per run and the ratios.
set -eu
peers=${FEDAUX_PEERS:-}
if [ -z "$peers" ] || [ ! -f "$peers/torch_fedaux.py" ]; then
	echo "compare.sh: FEDAUX_PEERS=\"$peers\" has no torch_fedaux.py; set it to the PyTorch peer's directory (docs/performance.md)" >&2
	exit 2
fi
data=${FEDAUX_DATA:-${XDG_DATA_HOME:-$HOME/.local/share}/fedaux}
out=${1:-bench/results/compare-$(date -u +%Y%m%dT%H%M%SZ)}
prec=${PRECISION:-f64}
rep=${REPEAT:-1}
case $rep in ''|*[!0-9]*|0) echo "compare.sh: REPEAT=$rep, want a positive whole number" >&2; exit 2 ;; esac
mkdir -p "$out"

if ! /usr/bin/python3 -c 'import torch, scipy' 2>/dev/null || ! command -v gpmetis >/dev/null || [ ! -x /usr/bin/time ]; then
	echo "installing python3-torch python3-scipy metis time (Debian)" >&2
	SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq && $SUDO apt-get install -y -qq python3-torch python3-scipy metis time >/dev/null
fi
tmp=$(mktemp -d)
bin=$tmp/fedaux
go build -o "$bin" .
go build -o "$tmp/contention" ./bench/contention

# probe NAME: the host's contention before run NAME, in contention.txt.
probe() {
	echo "$1 $("$tmp/contention" | awk '{print $2}')" >>"$out/contention.txt"
}

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
: >"$out/contention.txt"
# The ratios depend on the host's CPU (they moved from 3.8x to 2.2x between
# two machines of the same kind): keep what it was.
# The kernels fedaux picked (avx512, avx2) are its first line: the flags
# are cut at 300 characters, which leave AVX-512's out.
{ "$bin" version | sed -n 2p; lscpu 2>/dev/null | grep -E '^(Model name|CPU family|Model:|CPU\(s\)|Flags)' | cut -c1-300; uptime; echo "fedaux -precision $prec"; } >"$out/machine.txt"
i=1
while [ "$i" -le "$rep" ]; do
	sfx=""; [ "$rep" -gt 1 ] && sfx="-$i"
	probe cora10$sfx
	measure fedaux-cora10$sfx "$bin" run -preset cora-10-ref -data "$data" -rounds 100 -seed 0 -precision "$prec" -json
	measure torch-cora10$sfx /usr/bin/python3 "$peers/torch_fedaux.py" --data-dir "$data" --data cora --clients 10 \
		--partition fixture --rounds 100 --algo fedaux --seed 0 --threads 2 --quiet
	probe computer10$sfx
	measure fedaux-computer10$sfx "$bin" run -preset computer-10 -data "$data" -rounds 20 -epochs 2 -seed 0 -precision "$prec" -json
	measure torch-computer10$sfx /usr/bin/python3 "$peers/torch_fedaux.py" --data-dir "$data" --data computers --clients 10 \
		--partition metis --rounds 20 --epochs 2 --algo fedaux --seed 0 --threads 2 --quiet
	i=$((i + 1))
done

# One line a pair: the medians of its runs' wall times, the largest peak
# RSS, and with REPEAT > 1 every run's time.
awk '
function median(list,    a, n, i, j, v) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) { v = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > v + 0; j--) a[j+1] = a[j]; a[j+1] = v }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
{ k = $1; sub(/-[0-9]+$/, "", k); w[k] = w[k] " " $2; if ($3 + 0 > r[k]) r[k] = $3 + 0 }
END {
	for (d in w) if (d ~ /^fedaux-/) {
		t = d; sub(/^fedaux-/, "torch-", t)
		fw = median(w[d]); tw = median(w[t])
		runs = ""
		if (split(w[d], tmp, " ") > 1) runs = sprintf(" (runs: fedaux%s; torch%s)", w[d], w[t])
		printf "%s: fedaux %.1f s, %d MiB; torch %.1f s, %d MiB; fedaux is %.2fx faster, peak RSS %.2fx the peer'"'"'s%s\n",
			substr(d, 8), fw, r[d], tw, r[t], tw/fw, r[d]/r[t], runs
	}
}' "$out/summary.txt" | sort | tee "$out/ratios.txt"
# The contention before each fedaux run: about 1 in the host's fast phase,
# 1.4-1.8 in its slow one.
awk '{ k = $1; sub(/-[0-9]+$/, "", k); c[k] = c[k] " " $2 }
END { for (k in c) printf "%s: contention before each fedaux run (two cores / one):%s\n", k, c[k] }' \
	"$out/contention.txt" | sort | tee -a "$out/ratios.txt"
