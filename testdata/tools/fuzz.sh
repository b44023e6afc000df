#!/usr/bin/env bash
# Runs every Go fuzz test of the module for a while, one at a time (go test
# fuzzes one target per run, and the machine has few cores), and fails on the
# first input that breaks one, printing how to run it again.
#
# Usage: fuzz.sh [package ...]   (default: every package holding a Fuzz test)
#   FUZZTIME          how long each target runs (go test's -fuzztime; default 5s)
#   FUZZMINIMIZETIME  how long a new input is shrunk (-fuzzminimizetime; default
#                     1s): at Go's default, 60s, a large seed's first new coverage
#                     stalled the pulumi engine events' fuzzing for a minute
#
# Prints, per target, go test's last progress line (execs, new interesting
# inputs). The seeds it starts from are the f.Add calls and the files under
# the package's testdata/fuzz/<Target>/; what a run finds beyond them stays
# in Go's fuzz cache ($(go env GOCACHE)/fuzz).
set -euo pipefail
cd "$(dirname "$0")/../.."

fuzztime=${FUZZTIME:-5s}
minimizetime=${FUZZMINIMIZETIME:-1s}

if (($# == 0)); then
	# Packages whose tests declare a fuzz target; go test -list below says
	# which targets are really built (build tags and all).
	mapfile -t pkgs < <(grep -rl --include='*_test.go' '^func Fuzz' . |
		xargs -n1 dirname | sort -u | grep -v '/testdata/')
	set -- "${pkgs[@]}"
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# fuzz runs one target; true when it passed. Go before 1.27 can fail a run
# that found nothing with a bare "context deadline exceeded" as -fuzztime
# ends (golang/go#75804: its coordinator races its own deadline): such a
# run, with no failing input written and no other failure, is run again
# once, and passes if it then does.
fuzz() {
	local pkg=$1 target=$2
	for try in 1 2; do
		if go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimizetime" "$pkg" >"$log" 2>&1; then
			return 0
		fi
		if ((try == 2)) || grep -q 'Failing input written to' "$log" ||
			[[ $(grep -c -e '--- FAIL' -e 'panic:' -e '_test.go:[0-9]*:' "$log") != 1 ]] ||
			! grep -q '^    context deadline exceeded$' "$log"; then
			return 1
		fi
		echo "note $pkg $target: the fuzz coordinator's deadline race (golang/go#75804), nothing found; run again"
	done
}

failed=0
for pkg in "$@"; do
	list=$(go test -list '^Fuzz' "$pkg")
	targets=$(grep '^Fuzz' <<<"$list" || true)
	for target in $targets; do
		start=$SECONDS
		if fuzz "$pkg" "$target"; then
			progress=$(grep "fuzz: elapsed" "$log" | tail -n1 | sed -e "s/^fuzz: //" -e "s/ ([0-9]*\/sec)//")
			echo "ok   $pkg $target ($((SECONDS - start)) s): $progress"
			continue
		fi
		failed=1
		echo "FAIL $pkg $target"
		cat "$log"
		input=$(sed -n 's/.*Failing input written to \(testdata\/fuzz\/[^ ]*\).*/\1/p' "$log" | head -n1)
		if [[ -n $input ]]; then
			echo "To reproduce: go test -run '^$target/${input##*/}\$' $pkg"
			echo "(the input is $pkg/$input: commit it with the fix, as a seed that keeps the defect away)"
		else
			echo "To reproduce: go test -run '^\$' -fuzz '^$target\$' -fuzztime $fuzztime $pkg"
		fi
	done
done
exit $failed
