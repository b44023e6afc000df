#!/usr/bin/env bash
# Runs every Go fuzz test of the module for a while, FUZZJOBS packages at a
# time, and fails on any input that breaks one, printing how to run it
# again. Each package's test binary is built once (FUZZBUILD says how) and
# runs its targets one after another (go test -fuzz would link it again for
# every target).
#
# Usage: fuzz.sh [package ...]   (default: every package holding a Fuzz test)
#   FUZZTIME          how long each target runs (go test's -fuzztime; default 5s)
#   FUZZJOBS          packages fuzzed at once, the cores shared among them
#                     (default 2): a build and a target's baseline run are
#                     mostly one core's work, so two at a time keep both
#                     cores busy (the 21 targets: 184 s one at a time, 139 s
#                     two at a time, warm)
#   FUZZMINIMIZETIME  how long a new input is shrunk (-fuzzminimizetime; default
#                     1s): at Go's default, 60s, a large seed's first new coverage
#                     stalled the pulumi engine events' fuzzing for a minute
#   FUZZBUILD         guided (default): the binary carries the fuzzing
#                     instrumentation, and the coverage it reports guides the
#                     inputs; every package it depends on is compiled again,
#                     instrumented. race: the binary make test builds (-race),
#                     from the packages it compiled: the seeds are mutated
#                     without coverage guidance, under the race detector. CI
#                     runs race (ADR 0049, ninth round): a cold run spent 32 min
#                     on the instrumented compile, and beside make test most
#                     guided targets spent their 5 s gathering their baseline
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
build=${FUZZBUILD:-guided}
case $build in
guided) buildflags=(-fuzz .) ;;
race)
	# As make test links its test binaries; a race-built process that exits
	# (each fuzz worker) need not sleep a second first.
	buildflags=(-race -ldflags='-s -w')
	export GORACE=${GORACE:-atexit_sleep_ms=0}
	;;
*)
	echo "FUZZBUILD=$build: want guided or race" >&2
	exit 2
	;;
esac
if ! [[ $jobs =~ ^[1-9][0-9]*$ ]]; then
	echo "FUZZJOBS=$jobs: want a positive number of targets at a time" >&2
	exit 2
fi
# The workers each target gets: the cores shared among the targets at once.
workers=$(($(getconf _NPROCESSORS_ONLN) / jobs))
workers=$((workers > 0 ? workers : 1))

if (($# == 0)); then
	# Packages whose tests declare a fuzz target; each built test binary
	# lists the targets really built (build tags and all).
	mapfile -t pkgs < <(grep -rl --include='*_test.go' '^func Fuzz' . |
		xargs -n1 dirname | sort -u | grep -v '/testdata/')
	set -- "${pkgs[@]}"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# fuzz runs one target with the package's built test binary, in the
# package's directory (its corpus, and where a failing input is written) and
# with go test's fuzz cache; true when it passed. Go before 1.27 can fail a
# run that found nothing with a bare "context deadline exceeded" as
# -fuzztime ends (golang/go#75804: its coordinator races its own deadline):
# such a run, with no failing input written and no other failure, is run
# again once, and passes if it then does.
fuzz() {
	local pkg=$1 target=$2 log=$3 bin=$4 cache=$5
	for try in 1 2; do
		if (cd "$pkg" && "$bin" -test.run '^$' -test.fuzz "^$target\$" -test.fuzztime "$fuzztime" \
			-test.fuzzminimizetime "$minimizetime" -test.parallel "$workers" -test.fuzzcachedir "$cache") >"$log" 2>&1; then
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

# Each package runs in the background, at most $jobs at once: its build,
# then its targets as the binary lists them, each with a log and its time.
fuzzcache=$(go env GOCACHE)/fuzz
fuzzPackage() {
	local p=$1 pkg=$2 bin=$work/$1.test start=$SECONDS
	if ! go test -c "${buildflags[@]}" -o "$bin" "$pkg" >"$work/$p.build.log" 2>&1; then
		return
	fi
	local cache targets
	cache=$fuzzcache/$(go list -f '{{.ImportPath}}' "$pkg")
	if ! targets=$(cd "$pkg" && "$bin" -test.list '^Fuzz' 2>>"$work/$p.build.log"); then
		return
	fi
	grep '^Fuzz' <<<"$targets" >"$work/$p.targets" || true
	targets=$(cat "$work/$p.targets")
	local k=0
	for target in $targets; do
		if fuzz "$pkg" "$target" "$work/$p-$k.log" "$bin" "$cache"; then
			touch "$work/$p-$k.log.ok"
		fi
		echo $((SECONDS - start)) >"$work/$p-$k.took"
		start=$SECONDS
		k=$((k + 1))
	done
}

# reportDone prints, in order, the packages that have ended since the last
# call: a long run is never silent until its end.
reported=0 failed=0
reportDone() {
	while ((reported < $#)) && [[ -e $work/$reported.done ]]; do
		local pkg=${pkgs[reported]}
		if [[ ! -e $work/$reported.targets ]]; then
			echo "FAIL $pkg: building or listing its test binary for fuzzing"
			cat "$work/$reported.build.log"
			failed=1
		else
			local k=0
			for target in $(cat "$work/$reported.targets"); do
				report "$pkg" "$target" "$work/$reported-$k.log" "$(cat "$work/$reported-$k.took")" || failed=1
				k=$((k + 1))
			done
		fi
		reported=$((reported + 1))
	done
}

pkgs=("$@")
for ((p = 0; p < $#; p++)); do
	while (($(jobs -rp | wc -l) >= jobs)); do
		wait -n || true
		reportDone "$@"
	done
	(
		fuzzPackage "$p" "${pkgs[p]}"
		touch "$work/$p.done"
	) &
done
wait
reportDone "$@"
exit $failed
