#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs every user/ test suite and prints one final "N passed, N failed" line.
cd "$(dirname "$0")" || exit 2
total_pass=0
total_fail=0

run_suite() {
	name=$1
	shift
	echo "== $name"
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -v '^[0-9]* passed, [0-9]* failed$'
	summary=$(printf '%s\n' "$out" | grep '^[0-9]* passed, [0-9]* failed$' | tail -1)
	if [ -z "$summary" ]; then
		echo "FAIL $name: no summary line (exit $rc)"
		total_fail=$((total_fail + 1))
		return
	fi
	p=${summary%% passed*}
	f=${summary#*passed, }
	f=${f%% failed*}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
}

run_suite unit ./test_unit
run_suite tracefs-decode ./test_tracefs formats
run_suite netlink-request ./test_netlink
run_suite cli ./cli.sh
run_suite native-tracefs ./native_tracefs.sh
run_suite serve-prometheus ./serve_prometheus.sh
run_suite perfetto-proto ./perfetto_proto.sh
run_suite perfetto-export ./export_check.sh
run_suite never-lose ./never_lose.sh
run_suite agent ./agent.sh
run_suite json-inputs ./json_inputs.sh
run_suite probe ./probe.sh
run_suite probe-edu ./probe_edu.sh
run_suite inject ./inject.sh
run_suite explain ./test_explain
run_suite explain-h200 ./explain.sh

# The same suites under memcheck: use after free (the chunk reader's thread
# inside fread() on a closed file crashed CI only now and then), leaks.
MEMCHECK="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
command -v valgrind >/dev/null || MEMCHECK="echo valgrind is missing (scripts/deps.sh installs it):"
run_suite memcheck-unit $MEMCHECK ./test_unit
run_suite memcheck-tracefs-decode $MEMCHECK ./test_tracefs formats
run_suite memcheck-explain $MEMCHECK ./test_explain

echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
