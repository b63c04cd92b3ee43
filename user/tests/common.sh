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
	BDF=$(basename "$(dirname "$(readlink -f "/sys/block/$DISK/device")")")
}
