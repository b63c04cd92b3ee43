# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Sourced by the test runners (test.sh, package-test.sh): their pass, fail
# and skip counts, and the one summary line each ends with.
PASS=0 FAIL=0 SKIP=0

result() {	# name status(pass|fail|skip) [detail]
	case $2 in
	pass) PASS=$((PASS + 1)); echo "ok - $1" ;;
	skip) SKIP=$((SKIP + 1)); echo "ok - $1 # SKIP ${3:-}" ;;
	*) FAIL=$((FAIL + 1)); echo "not ok - $1 ${3:-}" ;;
	esac
}

# Adds the counts of a runner's own "N passed, N failed[, N skipped]" line,
# the last one in log that starts with prefix (a regex; default: anywhere).
add_summary() {	# name log [prefix]
	local line p f s
	line=$(grep -aE "${3:-}[0-9]+ passed, [0-9]+ failed" "$2" | tail -n1)
	if [ -z "$line" ]; then
		result "$1" fail "(no summary line; see $2)"
		return
	fi
	p=$(echo "$line" | grep -oE '[0-9]+ passed' | cut -d' ' -f1)
	f=$(echo "$line" | grep -oE '[0-9]+ failed' | cut -d' ' -f1)
	s=$(echo "$line" | grep -oE '[0-9]+ skipped' | cut -d' ' -f1)
	PASS=$((PASS + p)); FAIL=$((FAIL + f)); SKIP=$((SKIP + ${s:-0}))
	echo "# $1: $p passed, $f failed, ${s:-0} skipped"
}
