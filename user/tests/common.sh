# SPDX-License-Identifier: GPL-2.0
# Helpers for the shell test suites: pass/fail/skip counting.
GPT=${GPT:-$(cd "$(dirname "$0")/.." && pwd)/gpuprobe-trace}
PASSED=0
FAILED=0

pass() { echo "PASS $1"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $1${2:+: $2}"; FAILED=$((FAILED + 1)); }
skip() { echo "SKIP $1${2:+: $2}"; }
check() {	# check NAME CMD...: passes when CMD succeeds
	name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}
finish() {
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
	exit $?
}
