// Package deploy holds the files that run fedaux's studies on clusters:
// a Slurm job array (slurm-table.sh, and slurm-check.sh, which checks a
// site's setup) and a Kubernetes Indexed Job (k8s-table-job.yaml), each
// task running one shard of a table (docs/clusters.md).
//
// It has no code of its own. Its tests play the schedulers locally: every
// task of the array and every index of the Job runs the real binary with
// the scheduler's variables set, and the merged table must equal the
// table of one unsharded run.
package deploy
