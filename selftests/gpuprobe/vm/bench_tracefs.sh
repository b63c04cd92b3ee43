#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (scripts/bench-tracefs-vm.sh, issue 16 part 2):
# the tracefs source against `trace-cmd record` on the same interrupt + DMA
# events, at the highest rate the VM's two edu devices make together.
#
#   bench_tracefs.sh [ROUNDS [IRQS [PAIRS]]]
#
# Workload, per round: the first edu raises IRQS interrupts (each handled
# before the next) while the second does PAIRS dma_map_single() /
# dma_unmap_single() pairs of a 4 KiB buffer, concurrently (two vCPUs).
# Events per round: 2 per interrupt (irq_handler_entry, exit) and 6 per
# pair (the map's and unmap's entry and return kprobe events, iommu map and
# unmap), the same for both recorders:
#   gpuprobe-trace record --source tracefs -d EDU1 -d EDU2 (its own kprobe
#     events on the DMA API, entries filtered by device name, 8 MiB per CPU)
#   trace-cmd record -b 8192 of irq_handler_entry/exit filtered to both
#     edus' irqs, iommu map/unmap, io_page_fault and swiotlb_bounced
#     filtered to them, and kprobe events with gpuprobe-trace's fetch
#     arguments on dma_map_page_attrs / dma_unmap_page_attrs (the only
#     DMA-API calls of this workload; gpuprobe-trace probes 9 functions,
#     the other 7 uncalled here), entries filtered alike, created and
#     removed inside the measured command as gpuprobe-trace's are.
# gpuprobe-trace also records the workload's tasks' scheduler events (its
# second instance); their count is printed and added to its events.
# Each recorder's file is checked against the kernel: every interrupt of
# the /proc/interrupts delta and every pair of the edu driver's counters is
# in it, or the round counts what is missing as lost.
#
# Prints "sample NAME VALUE" lines (scripts/benchstat.py) and KTAP checks.
ROUNDS=${1:-5}
IRQS=${2:-20000}
PAIRS=${3:-5000}
. /gpuprobe/tests/ktap.sh
T=/sys/kernel/tracing
D=/sys/kernel/debug/gpuprobe_edu
W=/tmp/bt
mkdir -p $W

grep -q '^gpuprobe_edu ' /proc/modules || insmod /gpuprobe/gpuprobe_edu.ko
# shellcheck disable=SC2046 # two bus addresses, split on purpose
set -- $(for d in $(grep -l 0x11e8 /sys/bus/pci/devices/*/device); do
	basename "$(dirname "$d")"; done)
A=$1 B=$2
if [ -z "$B" ] || ! command -v trace-cmd >/dev/null; then
	echo "# needs two edu devices (VM_EDUS=2) and trace-cmd (VM_EXTRA_FILES)"
	exit 1
fi
IRQ=$(ls /sys/bus/pci/devices/$A/msi_irqs)
echo "# interrupts: edu $A (irq $IRQ); DMA: edu $B; $ROUNDS rounds of" \
	"$IRQS interrupts + $PAIRS map/unmap pairs"

IRQB=$(ls /sys/bus/pci/devices/$B/msi_irqs 2>/dev/null)
IRQF="irq==$IRQ"
[ -n "$IRQB" ] && IRQF="$IRQF||irq==$IRQB"
DEVF="device==\"$A\"||device==\"$B\""

# trace-cmd's kprobe events: gpuprobe-trace's definitions
# (user/source/tracefs/tracefs_kprobe.c) for the two calls the workload makes
DEV='devname=+0(+0(%di)):string'
RET='sp=$stack:x64 ret=$retval:x64'
cat >$W/tc.sh <<EOF
{
	echo 'p:tcbench/map_page dma_map_page_attrs $DEV size=%cx:u64 dir=%r8:u32 sp=\$stack:x64'
	echo 'r:tcbench/map_page_ret dma_map_page_attrs $RET'
	echo 'p:tcbench/unmap_page dma_unmap_page_attrs $DEV addr=%si:x64 size=%dx:u64 dir=%cx:u32 sp=\$stack:x64'
	echo 'r:tcbench/unmap_page_ret dma_unmap_page_attrs $RET'
} >>$T/kprobe_events || exit 1
trace-cmd record -q -b 8192 \\
	-e irq:irq_handler_entry -f '$IRQF' -e irq:irq_handler_exit -f '$IRQF' \\
	-e iommu:map -e iommu:unmap -e iommu:io_page_fault -f '$DEVF' \\
	-e swiotlb:swiotlb_bounced -f 'dev_name=="$A"||dev_name=="$B"' \\
	-e tcbench:map_page -f 'devname=="$B"' -e tcbench:map_page_ret \\
	-e tcbench:unmap_page -f 'devname=="$B"' -e tcbench:unmap_page_ret \\
	-o $W/t.dat "\$@"
rc=\$?
for e in map_page map_page_ret unmap_page unmap_page_ret; do
	echo "-:tcbench/\$e" >>$T/kprobe_events
done
exit \$rc
EOF

irqcount() { awk -v i="$IRQ:" '$1 == i { s = 0; for (k = 2; k <= NF && $k ~ /^[0-9]+$/; k++) s += $k; print s }' /proc/interrupts; }
stat_of() { awk -v k="$2" '$1 == k { print $2 }' $D/$1/stats; }
# a number of report --json: KEY's first value, or after "op": OP, or in
# the target whose "bdf" is BDF
jnum() { tr ',{}[' '\n\n\n\n' <$W/g.json | awk -v k="\"$1\":" -v op="$2" -v bdf="$3" '
	$1 == "\"bdf\":" { cur = $2 }
	op != "" && $1 == "\"op\":" { want = ($2 == "\"" op "\"") }
	$1 == k && (op == "" || want) && (bdf == "" || cur == "\"" bdf "\"") { print $2 + 0; exit }'; }
field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
cpu() { awk -v u="$(field "$1" user_s)" -v s="$(field "$1" sys_s)" 'BEGIN { printf "%.3f", u + s }'; }

# The interrupts and the task that raises them on vCPU 0, the maps on
# vCPU 1: a raise waits for its interrupt, and a wake-up from another vCPU
# makes the round's time depend on where the scheduler put it
echo 1 >/proc/irq/$IRQ/smp_affinity
cat >$W/work.sh <<EOF
taskset 1 sh -c 'echo $IRQS > $D/$A/irq' & a=\$!
taskset 2 sh -c 'echo "$PAIRS 4096" > $D/$B/mapbench' & b=\$!
wait \$a && wait \$b
EOF
echo : >$W/empty.sh
EVENTS=$((2 * IRQS + 6 * PAIRS))

record_round() {	# name [work.sh|empty.sh]
	name=$1 script=$W/${2:-work.sh}
	rm -f $W/inner $W/g.trace $W/t.dat
	i0=$(irqcount) m0=$(stat_of "$B" dma_maps)
	case $name in
	gpuprobe)
		outer=$(benchrun gpuprobe-trace record -q --source tracefs -d "$A" -d "$B" \
			-o $W/g.trace -- env BENCHRUN_OUT=$W/inner benchrun sh $script)
		gpuprobe-trace report --json $W/g.trace >$W/g.json ||
			echo "# round $r: report --json failed"
		irqs=$(jnum irq_count "" "$A")
		maps=$(jnum calls map_page)
		unmaps=$(jnum calls unmap_page)
		l1=$(jnum lost) l2=$(jnum unknown_count_reports)
		lost=$((${l1:-0} + ${l2:-0}))
		x1=$(jnum wakeups) x2=$(jnum switches)
		extra=$((${x1:-0} + ${x2:-0}))
		bytes=$(stat -c %s $W/g.trace)
		;;
	trace-cmd)
		outer=$(benchrun sh $W/tc.sh env BENCHRUN_OUT=$W/inner benchrun sh $script 2>$W/tc.err)
		# shellcheck disable=SC2046 # three counts
		set -- $(trace-cmd report -i $W/t.dat 2>/dev/null | awk '
			/ irq_handler_entry:/ { i++ } / map_page:/ { m++ } / unmap_page:/ { u++ }
			END { print i + 0, m + 0, u + 0 }')
		irqs=$1 maps=$2 unmaps=$3 extra=0
		# what the kernel's buffers overwrote or dropped (--stat's
		# "entries" are what was in them when the stats were read,
		# before the last flush: not lost)
		trace-cmd report --stat -i $W/t.dat >$W/t.stat 2>/dev/null
		lost=$(awk '$1 == "overrun:" || ($1 == "commit" && $2 == "overrun:") ||
			    ($1 == "dropped" && $2 == "events:") { n += $NF } END { print n + 0 }' $W/t.stat)
		bytes=$(stat -c %s $W/t.dat)
		;;
	esac
	di=$(($(irqcount) - i0)) dm=$(($(stat_of "$B" dma_maps) - m0))
	inner=$(cat $W/inner 2>/dev/null)
	wall=$(field "$inner" wall_s)
	if [ "$(field "$inner" status)" != 0 ]; then
		echo "# round $r, $name: the workload failed: recorder $outer, workload $inner"
		tail -5 $W/tc.err 2>/dev/null | sed 's/^/# /'
		return 1
	fi
	# what the kernel did and the file misses (the kernel's buffers
	# dropped it, or the recorder never read it) is lost too
	# (each kind on its own: a surplus of one must not hide a shortfall of
	# another); the kernel's drops show among the missing when they hit a
	# checked kind, so the round's loss is the larger of the two
	missed=$(awk -v di="$di" -v dm="$dm" -v i="${irqs:-0}" -v m="${maps:-0}" -v u="${unmaps:-0}" '
		function pos(x) { return x > 0 ? x : 0 }
		BEGIN { print pos(di - i) * 2 + pos(dm - m) * 3 + pos(dm - u) * 3 }')
	lost=${lost:-0}
	round_lost=$((lost > missed ? lost : missed))
	events=$((EVENTS + ${extra:-0}))
	rcpu=$(awk -v o="$(cpu "$outer")" -v i="$(cpu "$inner")" 'BEGIN { printf "%.3f", o - i }')
	if [ "$script" = $W/empty.sh ]; then
		# the recorder's fixed cost: set up, read nothing, tear down
		echo "# $name, empty workload: recorder CPU $rcpu s"
		echo "sample ${name}_fixed_cpu $rcpu"
		return 0
	fi
	echo "# $name: irqs $irqs of $di, maps $maps unmaps $unmaps of $dm, kernel dropped $lost," \
		"missing $missed events; ${extra:-0} scheduler events besides; workload $wall s," \
		"recorder CPU $rcpu s, $bytes bytes"
	echo "sample ${name}_lost $round_lost"
	echo "sample ${name}_events $events"
	echo "sample ${name}_rate $(awk -v n=$events -v w="$wall" 'BEGIN { printf "%.0f", n / w }')"
	echo "sample ${name}_cpu_us_per_event $(awk -v c="$rcpu" -v n=$events 'BEGIN { printf "%.3f", c * 1e6 / n }')"
	echo "sample ${name}_cpu $rcpu"
	echo "sample ${name}_slowdown $(awk -v w="$wall" -v b="$base" 'BEGIN { printf "%.3f", w / b }')"
	echo "sample ${name}_bytes_per_event $(awk -v s="$bytes" -v n=$events 'BEGIN { printf "%.1f", s / n }')"
	check "round $r, $name: the kernel counted $IRQS interrupts and $PAIRS pairs ($di, $dm)" \
		[ "$di" -eq "$IRQS" -a "$dm" -eq "$PAIRS" ]
	total=lost_$(echo "$name" | tr - _)	# lost_gpuprobe, lost_trace_cmd
	eval "$total=\$((\${$total:-0} + round_lost))"
}

for r in $(seq "$ROUNDS"); do
	echo "# round $r of $ROUNDS"
	rm -f $W/inner
	env BENCHRUN_OUT=$W/inner benchrun sh $W/work.sh
	base=$(field "$(cat $W/inner)" wall_s)
	echo "sample none_wall $base"
	echo "# none: workload $base s"
	if [ $((r % 2)) -eq 1 ]; then
		order="gpuprobe trace-cmd"
	else
		order="trace-cmd gpuprobe"
	fi
	for rec in $order; do
		record_round $rec || fail "round $r, $rec"
	done
	for rec in $order; do
		record_round $rec empty.sh || fail "round $r, $rec, empty workload"
	done
done
echo "sample events_per_round $EVENTS"
# scripts/bench-tracefs-vm.sh fails the run on a loss, after writing it up
echo "# gpuprobe-trace lost ${lost_gpuprobe:-0} events in $ROUNDS rounds"
echo "# trace-cmd lost ${lost_trace_cmd:-0} events in $ROUNDS rounds"
rmmod gpuprobe_edu
finish
