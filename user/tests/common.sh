# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# Helpers for the shell test suites: pass/fail/skip counting, and the one
# summary line "N passed, N failed, N skipped" each suite ends with (run.sh
# sums them; a skip is counted, so that a check that did not run shows).
GPT=${GPT:-$(cd "$(dirname "$0")/.." && pwd)/gpuprobe-trace}
PASSED=0
FAILED=0
SKIPPED=0

pass() { echo "PASS $1"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $1${2:+: $2}"; FAILED=$((FAILED + 1)); }
skip() { echo "SKIP $1: ${2:-no reason given}"; SKIPPED=$((SKIPPED + 1)); }
# check NAME CMD...: passes when CMD succeeds.  The whole condition must be
# CMD: in `check N [ a ] && [ b ]` the shell runs `[ b ]` outside check.
check() {
	name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}
# count_checks OUTPUT STATUS: a checker's PASS/FAIL lines (perfetto_check.py
# and its kin) counted as this suite's, shown indented; a checker that
# exits non-zero without a FAIL line is one failure more
count_checks() {
	printf '%s\n' "$1" | sed 's/^/    /'
	p=$(printf '%s\n' "$1" | grep -c '^PASS')
	f=$(printf '%s\n' "$1" | grep -c '^FAIL')
	PASSED=$((PASSED + p))
	FAILED=$((FAILED + f))
	[ "$2" -eq 0 ] || [ "$f" -gt 0 ] || FAILED=$((FAILED + 1))
}
finish() {
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" -eq 0 ]
	exit $?
}

# need_tracefs_disk WHAT: skip (and exit) unless root with tracefs irq events
# and the virtio disk $DISK; then BDF is the disk's PCI function.
TRACING=/sys/kernel/tracing
DISK=${GPUPROBE_TEST_DISK:-vda}
need_tracefs_disk() {
	if [ "$(id -u)" -ne 0 ]; then
		skip "$1" "need root"
		finish
	fi
	[ -d "$TRACING/events" ] || mount -t tracefs nodev "$TRACING" 2>/dev/null
	if [ ! -d "$TRACING/events/irq" ] || [ ! -e "/sys/block/$DISK/device" ]; then
		skip "$1" "no tracefs irq events or no /dev/$DISK"
		finish
	fi
	# /sys/block/vda/device -> .../0000:00:02.0/virtio1: the PCI function is its parent.
	# shellcheck disable=SC2034 # for the suites that source this
	BDF=$(basename "$(dirname "$(readlink -f "/sys/block/$DISK/device")")")
}
