#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (listed in selftests/gpuprobe/vm/list; also
# make -C user vmtest): the module and tracefs
# sources record the same NVMe workload; both must match the kernel's count.
# Then the same edu workload: identical interrupt counts and DMA totals.
. /gpuprobe/tests/ktap.sh

insmod /gpuprobe/gpuprobe.ko 2>/dev/null
BDF=$(basename "$(readlink -f /sys/block/nvme0n1/device/device)")
echo "NVMe at $BDF"
for src in module tracefs; do
	gpuprobe-trace record -q --source "$src" -d "$BDF" -o "/tmp/$src.trace" -- \
		dd if=/dev/nvme0n1 of=/dev/null bs=4k count=300 iflag=direct 2>/dev/null
	check "$src: record exits 0" [ $? -eq 0 ]
	gpuprobe-trace report "/tmp/$src.trace" >"/tmp/$src.txt"
	grep -E "irqs|kernel counted" "/tmp/$src.txt"
	total=$(awk '/kernel counted/ { s += $3 } END { print s + 0 }' "/tmp/$src.txt")
	echo "    $src: kernel counted $total in all"
	check "$src: every vector matches /proc/interrupts, 300 in all" \
		sh -c "! grep -q MISMATCH /tmp/$src.txt && [ $total -eq 300 ]"
	check "$src: no drops" grep -q "drops: none" "/tmp/$src.txt"
done
for src in module tracefs; do
	gpuprobe-trace record -q --source "$src" -d "$BDF" -o /tmp/exit.trace -- sh -c 'exit 7'
	check "$src: workload exit status 7 passed through" [ $? -eq 7 ]
done
gpuprobe-trace record -d "$BDF" -o /tmp/auto.trace -- true 2>/tmp/auto.err
check "auto picks the loaded module" grep -q "from module" /tmp/auto.err

# The edu device's exact workload from both sources: same interrupts, same
# DMA calls and bytes.  Debian's 6.1 has no dma: tracepoints, so the tracefs
# source records DMA through its own kprobe events.
insmod /gpuprobe/gpuprobe_edu.ko
EDU=$(basename "$(dirname "$(grep -l 0x11e8 /sys/bus/pci/devices/*/device)")")
CTL=/sys/kernel/debug/gpuprobe_edu/$EDU
echo "edu at $EDU"
# irq_count, then "OP calls bytes segments" per DMA op, of target $2 in report $1
edu_summary() {
	gpuprobe-trace report --json "$1" | awk -v B="\"$2\"," '
		/^      "bdf": / { mine = ($2 == B) }
		/^      "iommu": / { op = "" }
		!mine { next }
		{ v = $2; sub(/,$/, "", v) }
		/"irq_count":/ { print "irqs", v }
		/"op":/ { op = v; gsub(/"/, "", op); printf "\n%s", op }
		op != "" && /"(calls|bytes|segments)":/ { printf " %s %s", $1, v }
		END { print "" }'
}
for src in module tracefs; do
	gpuprobe-trace record -q --source "$src" -d "$EDU" -o "/tmp/edu-$src.trace" -- \
		sh -c "echo 'verify 8192' > $CTL/dma && echo 200 > $CTL/irq"
	check "edu $src: record exits 0" [ $? -eq 0 ]
	edu_summary "/tmp/edu-$src.trace" "$EDU" | grep . >"/tmp/edu-$src.sum"
	sed "s/^/    $src: /" "/tmp/edu-$src.sum"
done
check "edu: 2 maps and 2 unmaps of 8192 bytes, module" \
	grep -q '^map_page "calls": 2 "bytes": 16384 "segments": 2$' /tmp/edu-module.sum
check "edu: module and tracefs give identical interrupt counts and DMA calls and bytes" \
	cmp -s /tmp/edu-module.sum /tmp/edu-tracefs.sum
check "edu tracefs: map_page calls have durations" sh -c \
	"gpuprobe-trace report --json /tmp/edu-tracefs.trace | grep -A 10 '\"op\": \"map_page\"' |
	 awk '/\"min\":/ { m = \$2 + 0 } END { exit !(m > 0) }'"
leftovers() {
	ls /sys/kernel/tracing/instances | grep -c '^gpuprobe-'
	grep -c ':gpuprobe_' /sys/kernel/tracing/kprobe_events
}
gpuprobe-trace record -q --source tracefs -d "$EDU" -o /tmp/int.trace --duration 60 &
pid=$!
sleep 3
check "tracefs: kprobe group gpuprobe_$pid exists while recording" \
	grep -q ":gpuprobe_$pid/map_page " /sys/kernel/tracing/kprobe_events
kill -INT $pid
wait $pid
check "tracefs: SIGINT leaves no instance and no kprobe event behind" \
	[ "$(leftovers | tr '\n' ' ')" = "0 0 " ]
gpuprobe-trace record -q --source tracefs -d "$EDU" -o /tmp/kill.trace --duration 60 &
pid=$!
sleep 3
kill -KILL $pid
wait $pid
gpuprobe-trace record -q --source tracefs -d "$EDU" -o /tmp/after.trace -- true 2>/tmp/after.err
check "tracefs: the next run removes a killed run's instance and kprobe events" \
	sh -c "grep -q 'kprobe events left by killed runs' /tmp/after.err && [ \"\$(ls /sys/kernel/tracing/instances | grep -c '^gpuprobe-')\" -eq 0 ] && ! grep -q ':gpuprobe_' /sys/kernel/tracing/kprobe_events"
rmmod gpuprobe_edu

gpuprobe-trace info >/tmp/info.txt
check "info shows the module and its caps" grep -q "module source: gpuprobe .* record version 1" /tmp/info.txt
rmmod gpuprobe
gpuprobe-trace info >/tmp/info.txt
check "info without the module says how to load it" grep -q "insmod kmod/gpuprobe.ko" /tmp/info.txt
finish
