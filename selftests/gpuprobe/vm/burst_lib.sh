# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# Sourced by burst.sh and burst_bench.sh (inside the test VM, issue 30):
# the modules loaded, the edu found, O_DIRECT readers of the NVMe drive on
# CPU 0, and a burst of mapbench pairs on CPU 0 recorded by one source.
. /gpuprobe/tests/ktap.sh

for m in gpuprobe_edu gpuprobe; do
	grep -q "^$m " /proc/modules && rmmod $m
done
# BURST_KO: another build of the module (the benchmark's before)
insmod "${BURST_KO:-/gpuprobe/gpuprobe.ko}" || exit 1
insmod /gpuprobe/gpuprobe_edu.ko || exit 1
EDU=$(basename "$(dirname "$(grep -l 0x11e8 /sys/bus/pci/devices/*/device)")")
CTL=/sys/kernel/debug/gpuprobe_edu/$EDU
stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$CTL/stats"; }

# the edu's map_page and unmap_page calls, IOMMU maps and unmaps (the
# module source's; tracefs's carry no device), the trace's lost count and
# its count-less loss reports, from report --json
counts() {
	gpuprobe-trace report --json "$1" | tr ',{}[]' '\n\n\n\n\n' | awk -v B="\"$EDU\"" '
		$1 == "\"bdf\":" { mine = ($2 == B) }
		$1 == "\"iommu\":" { io = 1 }
		$1 == "\"op\":" { op = $2; gsub(/"/, "", op) }
		$1 == "\"map\":" && io { sec = "map" }
		$1 == "\"unmap\":" && io { sec = "unmap" }
		mine && $1 == "\"calls\":" && op != "" { c[op] = $2 }
		mine && io && $1 == "\"count\":" && sec != "" { n[sec] = $2; sec = "" }
		$1 == "\"lost\":" { lost = $2 }
		$1 == "\"unknown_count_reports\":" { unk = $2 }
		END { printf "%d %d %d %d %d %d\n", c["map_page"], c["unmap_page"],
		      n["map"], n["unmap"], lost, unk }'
}

READER_PIDS=
# N: O_DIRECT readers of the whole drive, over and over, on CPU 0.  Each
# ends its dd before it exits: a dd left reading would interrupt the tests
# that follow (irq.only_targeted_device_recorded counts the NVMe's
# interrupts)
start_readers() {
	READER_PIDS=
	_i=0
	while [ $_i -lt "$1" ]; do
		# shellcheck disable=SC2016 # $d: the reader's own variable
		taskset 1 sh -c 'trap "kill \$d 2>/dev/null; wait \$d; exit 0" TERM
			while :; do
				dd if=/dev/nvme0n1 of=/dev/null bs=4k iflag=direct 2>/dev/null & d=$!
				wait $d
			done' &
		READER_PIDS="$READER_PIDS $!"
		_i=$((_i + 1))
	done
}
stop_readers() {
	for _p in $READER_PIDS; do
		kill "$_p" 2>/dev/null
	done
	for _p in $READER_PIDS; do
		wait "$_p" 2>/dev/null
	done
	READER_PIDS=
	if ps | grep -q '[d]d if=/dev/nvme0n1'; then
		echo "# a reader's dd is still running"
		return 1
	fi
}

# burst SOURCE PAIRS [GAP_NS]: one recording of PAIRS mapbench pairs on CPU
# 0; sets RC (record's exit status), DM and DU (the edu driver's own count
# of maps and unmaps made), SECS (the mapbench write's guest time)
# shellcheck disable=SC2034 # RC, DM, DU and SECS: read by the callers
burst() {
	_m0=$(stat_of dma_maps) _u0=$(stat_of dma_unmaps)
	gpuprobe-trace record --source "$1" --no-inject -d "$EDU" -o /tmp/burst.trace -- \
		taskset 1 sh -c "t0=\$(cut -d' ' -f1 /proc/uptime)
			echo '$2 4096 ${3:-0}' > $CTL/mapbench || exit 1
			echo \$t0 \$(cut -d' ' -f1 /proc/uptime) > /tmp/burst.time" 2>/tmp/burst.err
	RC=$?
	DM=$(($(stat_of dma_maps) - _m0)) DU=$(($(stat_of dma_unmaps) - _u0))
	SECS=$(awk '{ print $2 - $1 }' /tmp/burst.time 2>/dev/null)
}
