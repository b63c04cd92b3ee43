#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the Xen tests (scripts/xen.sh --guest): edu's interrupts
# counted in a Xen HVM guest.  The edu driver raises N interrupts (its
# irq_sleep: each handled before the next); its line in /proc/interrupts
# must grow by exactly N, and the driver's own handled count too.  The
# line's chip says how they arrive: an event channel bound to edu's pirq
# (xen-pirq-msi) in PV-on-HVM mode, the vLAPIC's vector (PCI-MSI) with
# PV off.  Then the same N under `gpuprobe-trace record -d EDU`, with the
# tracefs source and then the module (target=EDU): each trace's irq_count
# for edu must equal the /proc/interrupts delta.
# usage: guest_irq.sh N
N=${1:-50}
# shellcheck source=selftests/gpuprobe/ktap.sh
. /gpuprobe/tests/ktap.sh
MODE=${XEN_MODE:-unknown}

[ -d /sys/module/gpuprobe_edu ] || insmod /gpuprobe/gpuprobe_edu.ko
EDU=$(basename "$(dirname "$(grep -l 0x11e8 /sys/bus/pci/devices/*/device)")")
CTL=/sys/kernel/debug/gpuprobe_edu/$EDU
echo "# mode $MODE, hypervisor $(cat /sys/hypervisor/type 2>/dev/null || echo '?'), edu at $EDU"
check "edu bound to gpuprobe_edu in the guest" [ -d "$CTL" ]

# edu's /proc/interrupts line and the sum of its per-CPU counts
irq_line() { grep ' gpuprobe_edu$' /proc/interrupts; }
irq_sum() {
	ncpu=$(head -n1 /proc/interrupts | wc -w)
	irq_line | awk -v n="$ncpu" '{ s = 0; for (i = 2; i <= n + 1; i++) s += $i; print s }'
}
handled() { awk '$1 == "irq_handled" { print $2 }' "$CTL/stats"; }
line=$(irq_line)
echo "# /proc/interrupts: $line"
check "edu has one line in /proc/interrupts" [ "$(irq_line | wc -l)" = 1 ]
# the interrupt's chip: PV-on-HVM remaps MSIs to event channels
# (xen-pirq-msi), without PV they are the vLAPIC's (PCI-MSI)
is_evtchn() { echo "$line" | grep -q xen-pirq; }
is_plain_msi() { echo "$line" | grep -q MSI && ! is_evtchn; }
case $MODE in
pvhvm) check "pvhvm: edu's MSI is a Xen event channel (xen-pirq)" is_evtchn ;;
nopv) check "nopv: edu's MSI is a plain MSI (no xen-pirq)" is_plain_msi ;;
esac

before=$(irq_sum)
h0=$(handled)
echo "$N" >"$CTL/irq_sleep"
after=$(irq_sum)
h1=$(handled)
delta=$((after - before))
echo "# $MODE: raised $N, /proc/interrupts delta $delta, driver handled $((h1 - h0))"
check "$MODE: /proc/interrupts delta = $N raised" [ "$delta" = "$N" ]
check "$MODE: the driver handled $N" [ "$((h1 - h0))" = "$N" ]

# gpuprobe's count from one source: N raised while it records, its
# irq_count for edu against the /proc/interrupts delta
traced_count() {	# source
	before=$(irq_sum)
	gpuprobe-trace record -q --source "$1" -d "$EDU" -o "/out/irq-$1.trace" -- \
		sh -c "echo $N >$CTL/irq_sleep" 2>"/out/record-$1.err"
	rc=$?
	after=$(irq_sum)
	delta=$((after - before))
	sed "s/^/# record ($1): /" "/out/record-$1.err"
	gpuprobe-trace report --json "/out/irq-$1.trace" >"/out/irq-$1.json" 2>"/out/report-$1.err"
	traced=$(awk '$1 == "\"irq_count\":" { v = $2; sub(/,$/, "", v); print v; exit }' "/out/irq-$1.json")
	echo "# $MODE: raised $N, /proc/interrupts delta $delta, gpuprobe ($1) irq_count ${traced:-none}"
	check "$MODE, $1: record exited 0" [ "$rc" = 0 ]
	check "$MODE, $1: /proc/interrupts delta = $N raised while recording" [ "$delta" = "$N" ]
	check "$MODE, $1: gpuprobe's irq_count = /proc/interrupts delta" [ "${traced:-x}" = "$delta" ]
}

gpuprobe-trace info -d "$EDU" >/out/info.txt 2>&1
sed -n '/^targets:/,$s/^/# info: /p' /out/info.txt
traced_count tracefs
if insmod /gpuprobe/gpuprobe.ko "target=$EDU" 2>/out/insmod.err; then
	gpuprobe-trace info -d "$EDU" >/out/info-module.txt 2>&1
	sed -n '/^targets:/,$s/^/# info (module loaded): /p' /out/info-module.txt
	traced_count module
	rmmod gpuprobe
else
	fail "$MODE: gpuprobe.ko loads in the guest ($(cat /out/insmod.err))"
fi
finish
