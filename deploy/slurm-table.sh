#!/usr/bin/env bash
# fedaux table (or sweep) as a Slurm job array: one shard per array task.
#
#   sbatch --array=0-7 deploy/slurm-table.sh -datasets computer,photo -clients 5,10,20
#
# Each task runs `fedaux table -shard auto`, which reads its shard from
# SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_STEP and
# SLURM_ARRAY_TASK_COUNT (--array=0-7, 1-8 and 0-14:2 each give shards 0..7
# of 8), runs the table's runs whose index is its shard mod the number of
# shards, and appends them to its own results-shard-I-of-N.jsonl in the
# shared output directory. The first task to start writes shards.json
# there, which fixes the number of shards: a task resubmitted alone
# (sbatch --array=3 ...) runs shard 3 of the first array again, and a task
# with other flags or another count is refused before it runs anything.
#
# Exit status: 0 when the task's runs are all done; non-zero otherwise, so
# that an afterok dependency fires only on a whole table:
#   1    an error (the message names the file or flag; a run whose data file
#        is absent is one: pass -skip-missing to run the others instead)
#   143  stopped by SIGTERM (scancel, or --signal before the time limit):
#        the run in flight was checkpointed at a round boundary; submit the
#        task again and it resumes there, bit for bit.
#
# Render the table once every task has ended well:
#   jid=$(sbatch --parsable --array=0-7 deploy/slurm-table.sh ARGS)
#   sbatch --dependency=afterok:$jid --wrap "fedaux table -render -out results/table ARGS"
#
# The #SBATCH lines below are defaults; options given to sbatch override
# them: sbatch --time=2:00:00 --mem=16G --cpus-per-task=4 --array=0-7 ...
# --signal=B:TERM@300 sends SIGTERM 5 minutes before the time limit (B: to
# this script, which is fedaux itself through exec); a FedSage+ round on
# Amazon-Computer can take over a minute on two cores, so leave room for it.
# --open-mode=append keeps a requeued task's earlier log.
#
# Environment (all optional):
#   FEDAUX_CMD   the study to shard: table (default) or sweep, e.g.
#                FEDAUX_CMD=sweep sbatch --array=0-3 deploy/slurm-table.sh -preset cora-10 -grid alpha=1,10
#   FEDAUX       the fedaux binary (default: fedaux on PATH, else ./fedaux);
#                for compute nodes with an older C library build it static:
#                CGO_ENABLED=0 go build -o fedaux .
#   FEDAUX_OUT   the shared output directory (default: results/table)
#   FEDAUX_DATA  the data directory (default: fedaux's)
#
#SBATCH --job-name=fedaux-table
#SBATCH --array=0-3
#SBATCH --cpus-per-task=2
#SBATCH --mem=8G
#SBATCH --time=24:00:00
#SBATCH --signal=B:TERM@300
#SBATCH --open-mode=append
#SBATCH --output=fedaux-table-%A_%a.log
set -euo pipefail

fedaux=${FEDAUX:-$(command -v fedaux || echo ./fedaux)}
cmd=${FEDAUX_CMD:-table}
case $cmd in
table | sweep) ;;
*) echo "slurm-table.sh: FEDAUX_CMD=$cmd, want table or sweep" >&2; exit 2 ;;
esac
out=${FEDAUX_OUT:-results/$cmd}
workers=${SLURM_CPUS_PER_TASK:-0}

exec "$fedaux" "$cmd" -shard auto -out "$out" -workers "$workers" "$@"
