# shards.sh: sourced by the Table 1 studies' run.sh (results/table1-f32,
# results/table1-f64, results/scaffold-table1), from the repository root.
# Sourcing it builds fedaux (or the command in package $pkg, when set) into
# a new temporary directory ($bin), where the shards' logs go too ($logs).
bin=$(mktemp -d)/fedaux
go build -buildvcs=auto -o "$bin" "${pkg:-.}"
logs=$(dirname "$bin")

# shards N OUT FLAGS...: fedaux table FLAGS as N shards of one worker into
# OUT, N/2 after another on each of the two cores, so that both cores are
# busy and each run's cpu_seconds is its cost; then the table of OUT.
shards() {
	n=$1
	dir=$2
	shift 2
	for c in 0 1; do
		(
			s=$((c * n / 2))
			while [ "$s" -lt $(((c + 1) * n / 2)) ]; do
				"$bin" table "$@" -seeds 3 -workers 1 -shard "$s/$n" -out "$dir" >"$logs/$(basename "$dir")-$s.log" 2>&1
				s=$((s + 1))
			done
		) &
	done
	wait
	"$bin" table "$@" -seeds 3 -out "$dir" -render
}
