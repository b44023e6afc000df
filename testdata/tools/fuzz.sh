#!/usr/bin/env bash
# Runs every Go fuzz test of the module for a while, FUZZJOBS targets at a
# time (go test fuzzes one target per run), and fails on any input that
# breaks one, printing how to run it again.
#
# Usage: fuzz.sh [package ...]   (default: every package holding a Fuzz test)
#   FUZZTIME          how long each target runs (go test's -fuzztime; default 5s)
#   FUZZJOBS          targets fuzzed at once, the cores shared among them
#                     (default 2): a target's build and baseline run are
#                     mostly one core's work, so two at a time keep both
#                     cores busy (the 21 targets: 184 s one at a time, 139 s
#                     two at a time, warm)
#   FUZZMINIMIZETIME  how long a new input is shrunk (-fuzzminimizetime; default
#                     1s): at Go's default, 60s, a large seed's first new coverage
#                     stalled the pulumi engine events' fuzzing for a minute
#
# Prints, per target in order, go test's last progress line (execs, new
# interesting inputs). The seeds it starts from are the f.Add calls and the
# files under the package's testdata/fuzz/<Target>/; what a run finds beyond them stays
# in Go's fuzz cache ($(go env GOCACHE)/fuzz).
set -euo pipefail
cd "$(dirname "$0")/../.."

fuzztime=${FUZZTIME:-5s}
minimizetime=${FUZZMINIMIZETIME:-1s}
jobs=${FUZZJOBS:-2}
if ! [[ $jobs =~ ^[1-9][0-9]*$ ]]; then
	echo "FUZZJOBS=$jobs: want a positive number of targets at a time" >&2
	exit 2
fi
# The workers each target gets: the cores shared among the targets at once.
workers=$(($(getconf _NPROCESSORS_ONLN) / jobs))
workers=$((workers > 0 ? workers : 1))

if (($# == 0)); then
	# Packages whose tests declare a fuzz target; go test -list below says
	# which targets are really built (build tags and all).
	mapfile -t pkgs < <(grep -rl --include='*_test.go' '^func Fuzz' . |
		xargs -n1 dirname | sort -u | grep -v '/testdata/')
	set -- "${pkgs[@]}"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# fuzz runs one target; true when it passed. Go before 1.27 can fail a run
# that found nothing with a bare "context deadline exceeded" as -fuzztime
# ends (golang/go#75804: its coordinator races its own deadline): such a
# run, with no failing input written and no other failure, is run again
# once, and passes if it then does.
fuzz() {
	local pkg=$1 target=$2 log=$3
	for try in 1 2; do
		if go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimizetime" -parallel "$workers" "$pkg" >"$log" 2>&1; then
			return 0
		fi
		if ((try == 2)) || grep -q 'Failing input written to' "$log" ||
			[[ $(grep -c -e '--- FAIL' -e 'panic:' -e '_test.go:[0-9]*:' "$log") != 1 ]] ||
			! grep -q '^    context deadline exceeded$' "$log"; then
			return 1
		fi
		echo "note $pkg $target: the fuzz coordinator's deadline race (golang/go#75804), nothing found; run again" >>"$log.note"
	done
}

# report prints how one target went, from its log; false when it failed.
report() {
	local pkg=$1 target=$2 log=$3 took=$4
	if [[ -e $log.note ]]; then
		cat "$log.note"
	fi
	if [[ -e $log.ok ]]; then
		progress=$(grep "fuzz: elapsed" "$log" | tail -n1 | sed -e "s/^fuzz: //" -e "s/ ([0-9]*\/sec)//")
		echo "ok   $pkg $target ($took s): $progress"
		return 0
	fi
	echo "FAIL $pkg $target"
	cat "$log"
	input=$(sed -n 's/.*Failing input written to \(testdata\/fuzz\/[^ ]*\).*/\1/p' "$log" | head -n1)
	if [[ -n $input ]]; then
		echo "To reproduce: go test -run '^$target/${input##*/}\$' $pkg"
		echo "(the input is $pkg/$input: commit it with the fix, as a seed that keeps the defect away)"
	else
		echo "To reproduce: go test -run '^\$' -fuzz '^$target\$' -fuzztime $fuzztime $pkg"
	fi
	return 1
}

# Every (package, target), in order; each runs in the background with its
# own log, at most $jobs at once.
n=0
declare -a pkgOf targetOf
for pkg in "$@"; do
	list=$(go test -list '^Fuzz' "$pkg")
	for target in $(grep '^Fuzz' <<<"$list" || true); do
		pkgOf[n]=$pkg targetOf[n]=$target
		n=$((n + 1))
	done
done

# reportDone prints, in order, the targets that have ended since the last
# call: a long run is never silent until its end.
reported=0 failed=0
reportDone() {
	while ((reported < n)) && [[ -e $work/$reported.took ]]; do
		report "${pkgOf[reported]}" "${targetOf[reported]}" "$work/$reported.log" "$(cat "$work/$reported.took")" || failed=1
		reported=$((reported + 1))
	done
}

for ((i = 0; i < n; i++)); do
	while (($(jobs -rp | wc -l) >= jobs)); do
		wait -n || true
		reportDone
	done
	(
		start=$SECONDS
		if fuzz "${pkgOf[i]}" "${targetOf[i]}" "$work/$i.log"; then
			touch "$work/$i.log.ok"
		fi
		echo $((SECONDS - start)) >"$work/$i.took.partial"
		mv "$work/$i.took.partial" "$work/$i.took"
	) &
done
wait
reportDone
exit $failed
