#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The tracefs source on this machine: direct I/O on the virtio block device
# behind /dev/vda must give exactly as many irq records as the kernel counted
# (/proc/interrupts) over the recording, with no tracefs instance left behind.
. "$(dirname "$0")/common.sh"

# gpuprobe instances whose process is gone: another run recording beside
# these tests (serve, record) keeps its own, alive, and is not a leftover
leftover_instances() {
	for i in $(ls "$TRACING/instances" 2>/dev/null | grep '^gpuprobe-[0-9]'); do
		p=${i#gpuprobe-}
		p=${p%%-*}
		[ -d "/proc/$p" ] || echo "$i"
	done
}

need_tracefs_disk "native tracefs tests"
echo "    /dev/$DISK is virtio on PCI $BDF"
# A scratch directory on the disk's own filesystem, so the writes reach it.
MNT=$(df --output=target "/dev/$DISK" 2>/dev/null | tail -1)
[ "$(df --output=source /var/tmp | tail -1)" = "/dev/$DISK" ] && MNT=/var/tmp
T=$(mktemp -d "$MNT/gpuprobe-native.XXXXXX")
trap 'rm -rf "$T"' EXIT

proc_interrupts_total() {	# sum of every CPU column of the device's rows
	awk -v dev="$BDF" '$0 ~ dev { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts
}

before=$(proc_interrupts_total)
"$GPT" record -q --source tracefs -d "$BDF" -o "$T/io.trace" -- sh -c \
	"for i in \$(seq 40); do dd if=/dev/zero of='$T/dd.bin' bs=64k count=4 oflag=direct conv=fsync 2>/dev/null || exit 3; done"
rc=$?
after=$(proc_interrupts_total)
check "record -- dd: exit 0" [ $rc -eq 0 ]
check "no tracefs instance left after the run" [ -z "$(leftover_instances)" ]

"$GPT" report "$T/io.trace" --json >"$T/io.json"
check "report --json on the recording" [ $? -eq 0 ]
python3 - "$T/io.json" "$((after - before))" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); outside = int(sys.argv[2])
vecs = d["targets"][0]["vectors"]
records = sum(v["kernel_count"]["records_in_window"] for v in vecs)
delta = sum(v["kernel_count"]["delta"] for v in vecs)
total = sum(v["count"] for v in vecs)
print(f"    kernel delta {delta}, records in window {records}, records {total}, "
      f"/proc/interrupts delta around the run {outside}")
ok = all(v["kernel_count"]["match"] for v in vecs) and delta == records
ok = ok and records >= 40 and total <= outside and d["drops"]["lost"] == 0
sys.exit(0 if ok else 1)
PY
check "irq records == /proc/interrupts delta over the recording" [ $? -eq 0 ]

"$GPT" record -q --source tracefs -d "$BDF" -o "$T/exit.trace" -- sh -c 'exit 7'
check "record -- sh -c 'exit 7' exits 7" [ $? -eq 7 ]
check "trace file is owner-only (0600): it holds DMA and physical addresses" [ "$(stat -c %a "$T/exit.trace")" = 600 ]
"$GPT" record -q --source tracefs -d "$BDF" -o "$T/kill.trace" -- sh -c 'kill -TERM $$'
check "workload killed by SIGTERM: exit 143" [ $? -eq 143 ]
"$GPT" record -q --source tracefs -d "$BDF" -o "$T/none.trace" -- /nonexistent/cmd 2>/dev/null
check "missing command: exit 127" [ $? -eq 127 ]

for sig in INT TERM; do
	"$GPT" record -q --source tracefs -d "$BDF" -o "$T/sig.trace" --duration 60 &
	pid=$!
	sleep 1
	seen=$(ls "$TRACING/instances" | grep "^gpuprobe-$pid\$")
	kill -"$sig" $pid
	wait $pid
	rc=$?
	check "SIG$sig: instance existed while recording" [ -n "$seen" ]
	# this run's instances only: other runs may be recording beside us
	check "SIG$sig: exit 0, no instance left" sh -c "[ $rc -eq 0 ] && [ -z \"\$(ls $TRACING/instances | grep '^gpuprobe-$pid\(-sched\)\?\$')\" ]"
	check "SIG$sig: the trace file is complete" sh -c \
		"\"$GPT\" report --json \"$T/sig.trace\" | python3 -c 'import json,sys; assert json.load(sys.stdin)[\"trace\"][\"complete\"]'"
done

"$GPT" record -q --source tracefs -d "$BDF" -o "$T/fork.trace" -- \
	sh -c "sleep 0.1 & echo \$! >'$T/child.pid'; wait"
"$GPT" export "$T/fork.trace" --csv "$T/fork.csv"
child=$(cat "$T/child.pid")
check "scheduler events follow the workload's children (pid $child)" \
	sh -c "awk -F, '(\$1 == \"wakeup\" || \$1 == \"switch\") && \$16 == $child' '$T/fork.csv' | grep -q ."

"$GPT" record -q --source tracefs -d "$BDF" -o "$T/killed.trace" --duration 60 &
pid=$!
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
check "SIGKILL leaves the instance behind (nothing can catch it)" \
	sh -c "ls $TRACING/instances | grep -q '^gpuprobe-$pid'"
"$GPT" record -q --source tracefs -d "$BDF" -o "$T/after.trace" -- true 2>"$T/after.err"
check "the next run removes the killed run's instances and says so" \
	sh -c "! ls $TRACING/instances | grep -q '^gpuprobe-$pid' && grep -q 'left by a killed run' '$T/after.err'"
check "no instance of a dead run left" [ -z "$(leftover_instances)" ]

"$GPT" record -q --source tracefs -d "$BDF" -o "$T/dur.trace" --duration 0.5
check "--duration 0.5 stops by itself" [ $? -eq 0 ]
check "info exits 0 with the target's vectors" sh -c "\"$GPT\" info -d $BDF | grep -q 'vector'"
finish
