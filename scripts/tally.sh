# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Sourced by the test runners (test.sh, package-test.sh): their pass, fail
# and skip counts, the skips' reasons, and the one summary line each ends
# with.  scripts/harness-test.sh tests these on made-up logs.
PASS=0 FAIL=0 SKIP=0
SKIPS=""	# one line per skip counted: "NAME: the line that gave it"

result() {	# name status(pass|fail|skip) [detail]
	case $2 in
	pass) PASS=$((PASS + 1)); echo "ok - $1" ;;
	skip) SKIP=$((SKIP + 1)); echo "ok - $1 # SKIP ${3:-}"
		SKIPS="$SKIPS$1: ${3:-no reason given}"$'\n' ;;
	*) FAIL=$((FAIL + 1)); echo "not ok - $1 ${3:-}" ;;
	esac
}

# The lines of a log that stand for one skip each, its runner's (so
# unindented): "SKIP NAME: WHY" (user/tests/common.sh), "ok N NAME # SKIP
# WHY" (KTAP: ktap.sh, the kselftest harness, vm/run.sh for a whole test),
# "# SKIP TEST: ..." (vm/run.sh, for a test's skipped case), "ok - NAME #
# SKIP WHY" (result above).
skip_lines() {	# log
	grep -aE '^(SKIP |ok [0-9]+ .*# SKIP|ok - .*# SKIP|# SKIP )' "$1"
}

# Adds a runner's own "N passed, N failed[, N skipped]" line (after prefix,
# literal text such as "vmtest: ") and its exit status.  That line must be
# the last of its log, make's own messages aside: a tally earlier in the log
# may be a nested runner's (a guest's, a suite's), and a runner that died
# before its summary has none, which fails.  A non-zero status fails the
# tier even when its tally says 0 failed (vmtest.sh exits 1 for a kernel
# WARN, BUG, lockdep or kmemleak report, or a timeout).
add_summary() {	# name status log [prefix]
	local line p f s n lines
	local re='^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$'
	line=$(grep -avE '^make(\[[0-9]+\])?: |^[[:space:]]*$' "$3" 2>/dev/null | tail -n1)
	if [ -n "${4:-}" ]; then
		if [[ $line == "$4"* ]]; then line=${line#"$4"}; else line=""; fi
	fi
	if ! [[ $line =~ $re ]]; then
		result "$1" fail "(exit ${2:-unknown}; $3 does not end with its own summary line \"${4:-}N passed, N failed\")"
		return
	fi
	p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[4]:-0}
	lines=$(skip_lines "$3")
	n=$(printf '%s' "$lines" | grep -c .)
	# a skip its runner printed but did not count is counted here
	if [ "$n" -gt "$s" ]; then
		echo "# $1: $n skip lines in $3 for the $s skips counted: counted $n"
		s=$n
	elif [ "$n" != "$s" ]; then
		echo "# $1: $n skip lines in $3 for the $s skips counted"
	fi
	PASS=$((PASS + p)); FAIL=$((FAIL + f)); SKIP=$((SKIP + s))
	echo "# $1: $p passed, $f failed, $s skipped"
	if [ $((p + f + s)) -eq 0 ]; then
		result "$1" fail "(its summary says it ran nothing: 0 passed, 0 failed, 0 skipped; see $3)"
	fi
	[ -z "$lines" ] || SKIPS="$SKIPS$(printf '%s\n' "$lines" | sed "s|^|$1: |")"$'\n'
	if [ "${2:-1}" != 0 ] && [ "$f" = 0 ]; then
		result "$1" fail "(exited ${2:-with no status} after its summary said 0 failed; see $3)"
	fi
}

# Every skip counted, with its reason, one line each.
print_skips() {
	[ -z "$SKIPS" ] || printf '%s' "$SKIPS" | sed 's/^/# skipped: /'
}
