#!/bin/sh
# old-defects.sh [COMMIT]: runs the console's defect tests (issue 23) on the
# code before the console's fixes, and on this tree, and prints PASS or FAIL
# per defect test on each, with the first lines of each failure on the old
# code. A defect test must FAIL on the old code and PASS here.
#
# COMMIT defaults to 6dca243, main before the console branch was first
# merged (6064589's first parent). The old tree is a temporary copy of that
# commit (git archive), not a git worktree, and is removed afterwards.
#
# The tests are this tree's tui/defects_test.go, copied into the old tree
# with one change, the only one needed to compile there (listed in
# tui/testdata/old-defects/port.sed): the old preset picker takes no data
# environment (newPicker's last argument). The headless half of defect 3
# (run -sigma 1e-200 refused) is console_cmd_test.go's
# TestRunRefusesUnderflowingSigma, copied into the old tree's root package.
#
# Run from the repository's root: sh tui/testdata/old-defects.sh
set -u
commit=${1:-6dca2435eac6fd6a55e926866b552a6caa8b64ee}
root=$(pwd)
old=$(mktemp -d /tmp/fedaux-old-defects.XXXXXX)
trap 'rm -rf "$old"' EXIT
git archive "$commit" | tar -x -C "$old" || exit 1
sed -f tui/testdata/old-defects/port.sed tui/defects_test.go > "$old/tui/defects_test.go"
{
	printf 'package main\n\nimport (\n\t"bytes"\n\t"strings"\n\t"testing"\n)\n\n'
	awk '/^\/\/ TestRunRefusesUnderflowingSigma/{p=1} p{print} p&&/^}/{exit}' console_cmd_test.go
} > "$old/sigma_defect_test.go"

tests=$(grep -o '^func Test[A-Za-z0-9]*' tui/defects_test.go | sed 's/func //')
echo "old: $(git log -1 --format='%h %s' "$commit" | cut -c1-90)"
echo "new: $(git log -1 --format='%h %s' HEAD | cut -c1-90)$(git diff --quiet HEAD -- tui . || echo ' (with uncommitted changes)')"
printf '%-30s %-5s %-5s %s\n' test old new "defect (issue 23)"
run() { # dir pkg test -> PASS/FAIL, the output in $old/out.txt
	if (cd "$1" && go test -count=1 -run "^$3\$" "$2") >"$old/out.txt" 2>&1; then echo PASS; else echo FAIL; fi
}
fails=""
for t in $tests TestRunRefusesUnderflowingSigma; do
	pkg=./tui/
	[ "$t" = TestRunRefusesUnderflowingSigma ] && pkg=.
	defect=$(grep -h -A1 "^// $t " tui/defects_test.go console_cmd_test.go | tr '\n' ' ' | sed -n 's/.*(\(defect [0-9]*\)).*/\1/p')
	[ "$t" = TestRunRefusesUnderflowingSigma ] && defect="defect 3 (headless)"
	o=$(run "$old" "$pkg" "$t"); oldout=$(cat "$old/out.txt")
	n=$(run "$root" "$pkg" "$t")
	printf '%-30s %-5s %-5s %s\n' "$t" "$o" "$n" "$defect"
	if [ "$o" = FAIL ]; then
		fails="$fails
== $t on the old code:
$(echo "$oldout" | grep -E '^\s+[a-z_]+_test\.go:[0-9]+:|panic|cannot|undefined' | head -4 | cut -c1-220)"
	fi
done
echo "$fails"
