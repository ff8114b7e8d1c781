#!/usr/bin/env bash
# fedaux table as a Slurm job array: one shard of the table per array task.
#
#   sbatch --array=0-7 deploy/slurm-table.sh -datasets computer,photo -clients 5,10,20
#
# Each task runs `fedaux table -shard auto`, which reads its shard from
# SLURM_ARRAY_TASK_ID (less SLURM_ARRAY_TASK_MIN) and SLURM_ARRAY_TASK_COUNT,
# runs the table's runs whose index is its shard mod the task count, and
# appends them to its own results-shard-I-of-N.jsonl in the shared output
# directory. Every task rewrites the table from all the results files
# there; once all tasks are done, `fedaux table` with the same flags and
# -out renders the whole table (or run the array again: nothing finished
# is computed twice, a task killed mid-run resumes where it stopped).
# Keep --array 0-based and without a step (0-7, not 0-14:2).
#
# Environment (all optional):
#   FEDAUX       the fedaux binary (default: fedaux on PATH, else ./fedaux)
#   FEDAUX_OUT   the shared output directory (default: results/table)
#   FEDAUX_DATA  the data directory (default: fedaux's)
#
#SBATCH --job-name=fedaux-table
#SBATCH --array=0-3
#SBATCH --cpus-per-task=2
#SBATCH --mem=8G
#SBATCH --time=24:00:00
#SBATCH --output=fedaux-table-%A_%a.log
set -euo pipefail

fedaux=${FEDAUX:-$(command -v fedaux || echo ./fedaux)}
out=${FEDAUX_OUT:-results/table}
workers=${SLURM_CPUS_PER_TASK:-0}

exec "$fedaux" table -shard auto -out "$out" -workers "$workers" "$@"
