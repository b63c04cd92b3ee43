#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs every user/ test suite and prints one final line "N passed, N failed,
# N skipped": the sums of the suites' own summary lines, each of which must
# be its suite's last line; a suite without one, or that exits non-zero,
# fails whatever its tally says.  Each skip's "SKIP name: reason" line passes
# through (scripts/test.sh lists them).  With arguments, runs those
# commands as its suites instead (scripts/harness-test.sh, on made-up ones).
cd "$(dirname "$0")" || exit 2
total_pass=0
total_fail=0
total_skip=0
SUMMARY='^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$'

run_suite() {
	name=$1
	shift
	echo "== $name"
	out=$("$@" 2>&1)
	rc=$?
	# the last line only: a line of the same form printed earlier (by a
	# tool the suite ran) is not the suite's tally
	summary=$(printf '%s\n' "$out" | tail -n1 | grep -E "$SUMMARY")
	if [ -n "$summary" ]; then
		printf '%s\n' "$out" | sed '$d'
	else
		printf '%s\n' "$out"
		echo "FAIL $name: its last line is not its summary (exit $rc)"
		total_fail=$((total_fail + 1))
		return
	fi
	p=${summary%% passed*}
	f=${summary#*passed, }
	f=${f%% failed*}
	s=0
	case $summary in *skipped) s=${summary##*failed, }; s=${s%% skipped} ;; esac
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: exit $rc after $summary"
		f=1
	fi
	echo "== $name: $p passed, $f failed, $s skipped"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + s))
}

all_suites() {
	run_suite unit ./test_unit
	run_suite tracefs-decode ./test_tracefs formats
	run_suite netlink-request ./test_netlink
	run_suite cli ./cli.sh
	run_suite native-tracefs ./native_tracefs.sh
	run_suite serve-prometheus ./serve_prometheus.sh
	run_suite perfetto-proto ./perfetto_proto.sh
	run_suite perfetto-parts ./perfetto_parts.sh
	run_suite perfetto-export ./export_check.sh
	run_suite never-lose ./never_lose.sh
	run_suite outputs ./outputs.sh
	run_suite refuse ./refuse.sh
	run_suite damage ./damage.sh
	run_suite verdict ./verdict.sh
	run_suite cmdline ./cmdline.sh
	run_suite delivery ./delivery.sh
	run_suite names ./names.sh
	run_suite agent ./agent.sh
	run_suite json-inputs ./json_inputs.sh
	run_suite probe ./probe.sh
	run_suite probe-edu ./probe_edu.sh
	run_suite inject ./inject.sh
	run_suite explain ./test_explain
	run_suite explain-h200 ./explain.sh
	run_suite committed-traces ./traces.sh
	run_suite layers ./layers.sh
	run_suite iommu-parts ./iommu_parts.sh
	run_suite xentrace ./xentrace.sh
	run_suite cgroup-args ./cgroup_args.sh
	run_suite cgroup-tracefs ./cgroup_tracefs.sh
	run_suite tracefs-container ./tracefs_container.sh
	run_suite container-opencl ./container_opencl.sh

	# The same suites under memcheck: use after free (the chunk reader's thread
	# inside fread() on a closed file crashed CI only now and then), leaks.
	MEMCHECK="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
	command -v valgrind >/dev/null || MEMCHECK="echo valgrind is missing (scripts/deps.sh installs it):"
	run_suite memcheck-unit $MEMCHECK ./test_unit
	run_suite memcheck-tracefs-decode $MEMCHECK ./test_tracefs formats
	run_suite memcheck-explain $MEMCHECK ./test_explain
}

if [ $# -gt 0 ]; then
	for suite in "$@"; do run_suite "$(basename "$suite")" "$suite"; done
else
	all_suites
fi

echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
