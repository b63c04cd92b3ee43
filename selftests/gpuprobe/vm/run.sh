#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM: every test listed in /gpuprobe/tests/list (or the
# names given), KTAP on stdout.  Programs built on the kselftest harness report
# their own cases (nested, indented); other tests count by exit status
# (0 pass, 4 skip, anything else fail), each followed by "# NAME took S s"
# (guest time).  Ends with "# vm: N passed, N failed, N skipped".
cd /gpuprobe/tests || exit 1
# list.debug: the stress tests, the fuzzer and fault injection, run by the
# debug tier by name (scripts/test.sh); list.package: the signing and
# installed-package tests of scripts/package-test.sh; their commands are
# looked up there too
cat list list.debug list.package >/tmp/list.all 2>/dev/null
if [ $# -gt 0 ]; then
	names=$(echo "$*" | tr ',' ' ')
else
	names=$(grep -v '^#' list | awk 'NF { print $1 }')
fi

count=$(echo "$names" | wc -w)
echo "TAP version 13"
echo "1..$count"
n=0 pass=0 failed=0 skip=0
for name in $names; do
	n=$((n + 1))
	cmd=$(awk -v n="$name" '$1 == n { $1 = ""; print }' /tmp/list.all)
	[ -n "$cmd" ] || cmd="./$name"
	out=/tmp/ktap.$name
	t0=$(cut -d' ' -f1 /proc/uptime)
	# shellcheck disable=SC2086
	sh -c "$cmd" >"$out" 2>&1
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	sed 's/^/    /' "$out"
	p=$(grep -cE '^ok [0-9]+ [^#]*$' "$out")
	s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$out")
	f=$(grep -cE '^not ok [0-9]+' "$out")
	whole=0
	if [ $((p + s + f)) -eq 0 ]; then
		case $rc in
		0) p=1 ;;
		4) s=1; whole=1 ;;
		*) f=1 ;;
		esac
	elif [ $rc -ne 0 ] && [ $rc -ne 4 ] && [ "$f" -eq 0 ]; then
		f=1	# died after its last report
	fi
	pass=$((pass + p)); failed=$((failed + f)); skip=$((skip + s))
	# one unindented line per skip counted, with its reason (scripts/test.sh
	# lists them): the test's own ("1..0 # SKIP why", exit 4) or its cases'
	if [ $whole = 1 ]; then
		# its "# SKIP why", else its last comment
		why=$(grep -m1 -o '# SKIP.*' "$out" | sed 's/^# SKIP *//')
		[ -n "$why" ] || why=$(grep '^# ' "$out" | tail -n1 | sed 's/^# //')
		echo "ok $n $name # SKIP ${why:-exit 4, no reason given}"
	else
		[ "$s" -eq 0 ] || grep -E '^ok [0-9]+ .*# SKIP' "$out" | sed "s/^/# SKIP $name: /"
		if [ $rc -eq 4 ] && [ "$f" -eq 0 ]; then
			echo "ok $n $name # exit 4, $s of its cases skipped"
		elif [ "$f" -eq 0 ] && [ $rc -eq 0 ]; then
			echo "ok $n $name"
		else
			echo "not ok $n $name # exit $rc"
		fi
	fi
	# guest time, for balancing the debug tier's VMs (scripts/test.sh)
	echo "# $name took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
done
echo "# vm: $pass passed, $failed failed, $skip skipped"
# the exit status says it too (scripts/vmtest.sh exits with it)
[ "$failed" -eq 0 ]
