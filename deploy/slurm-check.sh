#!/usr/bin/env bash
# slurm-check.sh: deploy/slurm-table.sh on a real Slurm, as a cluster user
# runs it. It installs Debian's slurm-wlm and munge when missing (as root),
# starts a single-node cluster of its own (its own config, state and
# ports, in WORKDIR), and plays:
#   1. arrays of 2 tasks started together (10 of them, ARRAYS=N for
#      another number) and one of 4 tasks, into fresh directories: every
#      task COMPLETED 0:0, the merged table equal to an unsharded run's;
#   2. a stepped array (--array=0-4:2): the same;
#   3. one task resubmitted alone (--array=2) after its results were lost:
#      it runs its own shard only;
#   4. an afterok render job after the array: it runs, and renders the
#      whole table;
#   5. an array without the data: every task FAILED with exit 1 naming the
#      file, and the afterok job never runs (DependencyNeverSatisfied);
#   6. a time limit with --signal=B:TERM: the task checkpoints and exits
#      143 (FAILED), and requeued it resumes from the checkpoint;
#   7. scancel of a running task, then scontrol requeue: it resumes, and
#      the table equals an uninterrupted run's; its log keeps both attempts.
# Then it stops the daemons it started, by PID. From the repository root:
#   sh deploy/slurm-check.sh [WORKDIR]
# It prints one line per check ("ok ..." or "FAIL ...") and exits 1 if any
# failed. It takes a few minutes; it needs the Cora files in $FEDAUX_DATA
# (default ~/.local/share/fedaux, where 'fedaux data get' puts them).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
work=${1:-$(mktemp -d /tmp/fedaux-slurm.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
data=$(cd "${FEDAUX_DATA:-${XDG_DATA_HOME:-$HOME/.local/share}/fedaux}" && pwd)
export SLURM_CONF=$work/slurm.conf
failures=0

say() { printf '%s\n' "$*"; }
ok() { say "ok   $*"; }
fail() { say "FAIL $*"; failures=$((failures + 1)); }
check() { # check NAME COMMAND...: ok when COMMAND succeeds
	name=$1; shift
	if "$@" >/dev/null 2>&1; then ok "$name"; else fail "$name"; fi
}

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	say "installing slurm-wlm and munge (Debian)"
	SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq slurm-wlm munge >/dev/null
fi
say "slurm: $(slurmctld -V)"

# The cluster: this machine as its one node, its CPUs and most of its memory.
cpus=$(nproc)
mem=$(awk '/MemTotal/ {printf "%d", $2 / 1024 * 0.8}' /proc/meminfo)
mkdir -p "$work/state" "$work/spool" "$work/log" "$work/jobs"
cat >"$SLURM_CONF" <<EOF
ClusterName=fedaux-check
SlurmctldHost=$(hostname)
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldPort=${SLURMCTLD_PORT:-6917}
SlurmdPort=${SLURMD_PORT:-6918}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
JobRequeue=1
MinJobAge=3600
KillWait=60
NodeName=$(hostname) CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=check Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	sleep 1
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
if ! munge -n >/dev/null 2>&1; then
	mkdir -p /run/munge && chown munge:munge /run/munge
	runuser -u munge -- /usr/sbin/munged --pid-file="$work/munged.pid" 2>/dev/null || /usr/sbin/munged --force --pid-file="$work/munged.pid"
	sleep 1
	pids+=("$(cat "$work/munged.pid")")
fi
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 30); do
	[ -s "$work/slurmctld.pid" ] && [ -s "$work/slurmd.pid" ] && sinfo -h -o %t 2>/dev/null | grep -q idle && break
	sleep 1
done
pids+=("$(cat "$work/slurmd.pid")" "$(cat "$work/slurmctld.pid")")
say "cluster up: $(sinfo -h -o '%P %D %t %c CPUs')"

# A static binary, as for compute nodes with an older C library.
bin=$work/fedaux
CGO_ENABLED=0 go build -o "$bin" .
check "the binary is static (CGO_ENABLED=0)" sh -c "! ldd '$bin' 2>/dev/null | grep -q 'libc'"

args=(-datasets cora -clients 5 -algos local,fedavg -seeds 2 -rounds 2 -hidden 8)
long=(-datasets cora -clients 5 -algos fedaux -seeds 1 -rounds 6000 -hidden 64)
FEDAUX_DATA=$data "$bin" table -out "$work/ref" -workers 1 "${args[@]}" >/dev/null 2>&1
FEDAUX_DATA=$data "$bin" table -out "$work/ref-long" -workers 1 "${long[@]}" >/dev/null 2>&1

# submit OUT [DATA] -- SBATCH_OPTIONS... -- TABLE_ARGS...: the job ID.
submit() {
	out=$1; d=$2; shift 2
	opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	sbatch --parsable --chdir="$repo" --cpus-per-task=1 --mem=1G --time=30 \
		--export="ALL,FEDAUX=$bin,FEDAUX_OUT=$out,FEDAUX_DATA=$d" \
		--output="$work/jobs/%x-%A_%a.log" "${opts[@]}" deploy/slurm-table.sh "$@"
}
# finished JOBID: wait until no task of the job is pending or running.
finished() {
	while squeue -h -j "$1" -t PENDING,RUNNING,CONFIGURING,COMPLETING 2>/dev/null | grep -q .; do sleep 1; done
}
# states JOBID: "STATE EXIT" of each task, sorted and counted.
states() {
	scontrol -o show job "$1" | sed -n 's/.* JobState=\([A-Z_]*\) .* ExitCode=\([0-9:]*\) .*/\1 \2/p' | sort | uniq -c | sed 's/^ *//'
}
# same_table A B: the tables of A and B are equal but for their compute time.
same_table() { cmp -s <(grep -v '^Compute time:' "$1/table1.md") <(grep -v '^Compute time:' "$2/table1.md"); }

# 1. Arrays of two tasks started together (ARRAYS of them: 3 of 10 lost a
# shard before shards rendered through temporary files of their own), then
# one of four tasks, two at a time.
arrays=${ARRAYS:-10}
good=0
for trial in $(seq "$arrays"); do
	out=$work/pair$trial
	jid=$(submit "$out" "$data" --array=0-1 -- "${args[@]}")
	finished "$jid"
	st=$(states "$jid")
	if [ "$st" = "2 COMPLETED 0:0" ] && same_table "$out" "$work/ref"; then good=$((good + 1)); else say "     array 0-1 (trial $trial): $st"; fi
done
[ "$good" = "$arrays" ] && ok "$good of $arrays arrays 0-1: both tasks COMPLETED 0:0, the table equals the unsharded run's" ||
	fail "$good of $arrays arrays 0-1: both tasks COMPLETED 0:0, the table equals the unsharded run's"
out=$work/array1
jid=$(submit "$out" "$data" --array=0-3 -- "${args[@]}")
finished "$jid"
st=$(states "$jid")
[ "$st" = "4 COMPLETED 0:0" ] && ok "array 0-3: $st" || fail "array 0-3: $st"
check "array 0-3: the table equals the unsharded run's" same_table "$out" "$work/ref"

# 2. A stepped array.
out=$work/stepped
jid=$(submit "$out" "$data" --array=0-4:2 -- "${args[@]}")
finished "$jid"
st=$(states "$jid")
[ "$st" = "3 COMPLETED 0:0" ] && ok "array 0-4:2: $st" || fail "array 0-4:2: $st"
check "array 0-4:2: the table equals the unsharded run's" same_table "$out" "$work/ref"

# 3. One task resubmitted alone, after its shard's results were lost.
out=$work/array1
rm "$out/results-shard-2-of-4.jsonl"
jid=$(submit "$out" "$data" --array=2 -- "${args[@]}")
finished "$jid"
st=$(states "$jid")
[ "$st" = "1 COMPLETED 0:0" ] && ok "resubmitted --array=2: $st" || fail "resubmitted --array=2: $st"
check "resubmitted --array=2 ran shard 2/4 only" grep -q "in shard 2/4 (0 reused, 1 run now)" "$work/jobs/fedaux-table-${jid}_2.log"
check "resubmitted --array=2: the table equals the unsharded run's" same_table "$out" "$work/ref"
lines=$(cat "$out"/results*.jsonl | wc -l)
[ "$lines" = 4 ] && ok "resubmitted --array=2: 4 results, none twice" || fail "resubmitted --array=2: $lines results lines, want 4"

# 4. afterok: the render job runs after every task ended well.
out=$work/afterok
jid=$(submit "$out" "$data" --array=0-3 -- "${args[@]}")
rid=$(sbatch --parsable --chdir="$repo" --dependency="afterok:$jid" --output="$work/jobs/render-%j.log" \
	--wrap "FEDAUX_DATA=$data $bin table -render -out $out ${args[*]}")
finished "$jid"; finished "$rid"
st=$(states "$rid")
[ "$st" = "1 COMPLETED 0:0" ] && ok "afterok render after a good array: $st" || fail "afterok render after a good array: $st"
check "afterok render: the table equals the unsharded run's" same_table "$out" "$work/ref"

# 5. No data on the node.
mkdir -p "$work/empty"
jid=$(submit "$work/nodata" "$work/empty" --array=0-1 -- "${args[@]}")
rid=$(sbatch --parsable --chdir="$repo" --dependency="afterok:$jid" --output="$work/jobs/render-%j.log" --wrap "true")
finished "$jid"
st=$(states "$jid")
[ "$st" = "2 FAILED 1:0" ] && ok "array without data: $st" || fail "array without data: $st"
check "array without data: the log names the missing file" grep -q "$work/empty/cora.npz" "$work/jobs/fedaux-table-${jid}_0.log"
reason=
for _ in $(seq 60); do # the controller marks the dependency at its next pass
	reason=$(squeue -h -j "$rid" -o %r)
	[ "$reason" = DependencyNeverSatisfied ] && break
	sleep 1
done
[ "$reason" = DependencyNeverSatisfied ] && ok "array without data: the afterok job does not run ($reason)" || fail "array without data: the afterok job: '$reason'"
scancel "$rid"

# 6. A time limit: SIGTERM 30 s before it (Slurm sends it up to a minute
# early), the task checkpoints and fails with 143; requeued, it resumes.
out=$work/timelimit
jid=$(submit "$out" "$data" --array=0 --time=2 --signal=B:TERM@30 -- "${long[@]}")
finished "$jid"
st=$(states "$jid")
[ "$st" = "1 FAILED 143:0" ] && ok "time limit with --signal=B:TERM@30: $st" || fail "time limit with --signal=B:TERM@30: $st"
log=$work/jobs/fedaux-table-${jid}_0.log
check "time limit: the task says it checkpointed" grep -q "was checkpointed at round" "$log"
scontrol update JobId="${jid}_0" TimeLimit=30 >/dev/null 2>&1 || true
scontrol requeue "${jid}_0"
finished "$jid"
st=$(states "$jid")
[ "$st" = "1 COMPLETED 0:0" ] && ok "time limit, requeued: $st" || fail "time limit, requeued: $st"
check "time limit, requeued: it resumed from the checkpoint" grep -q "resumed from its checkpoint at round" "$log"
check "time limit, requeued: the table equals an uninterrupted run's" same_table "$out" "$work/ref-long"

# 7. scancel of a running task, then scontrol requeue.
out=$work/cancel
jid=$(submit "$out" "$data" --array=0 -- "${long[@]}")
log=$work/jobs/fedaux-table-${jid}_0.log
for _ in $(seq 120); do grep -q "round  *[0-9]*/6000" "$log" 2>/dev/null && break; sleep 1; done
scancel "${jid}_0"
finished "$jid"
st=$(states "$jid")
case $st in "1 CANCELLED "*) ok "scancel: $st" ;; *) fail "scancel: $st" ;; esac
check "scancel: the task says it checkpointed" grep -q "was checkpointed at round" "$log"
scontrol requeue "${jid}_0"
finished "$jid"
st=$(states "$jid")
[ "$st" = "1 COMPLETED 0:0" ] && ok "scancel, requeued: $st" || fail "scancel, requeued: $st"
check "scancel, requeued: the log keeps both attempts (--open-mode=append)" sh -c "grep -q 'was checkpointed at round' '$log' && grep -q 'resumed from its checkpoint at round' '$log'"
check "scancel, requeued: the table equals an uninterrupted run's" same_table "$out" "$work/ref-long"

say "$failures check(s) failed; logs in $work"
[ "$failures" = 0 ]
