#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the Xen tests (scripts/xen.sh --guest): edu's interrupts
# counted in a Xen HVM guest.  The edu driver raises N interrupts (its
# irq_sleep: each handled before the next); its line in /proc/interrupts
# must grow by exactly N, and the driver's own handled count too.  Then
# the same N under `gpuprobe-trace record --source tracefs -d EDU`: the
# trace's irq_count for edu must equal the /proc/interrupts delta (in
# PV-on-HVM mode edu's irq is an event channel bound to its pirq; the
# tracefs source finds it in the device's sysfs msi_irqs all the same).
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

# gpuprobe's count, tracefs source
gpuprobe-trace info -d "$EDU" >/out/info.txt 2>&1
sed 's/^/# info: /' /out/info.txt
before=$(irq_sum)
gpuprobe-trace record -q --source tracefs -d "$EDU" -o /out/irq.trace -- \
	sh -c "echo $N >$CTL/irq_sleep" 2>/out/record.err
rc=$?
after=$(irq_sum)
delta=$((after - before))
sed 's/^/# record: /' /out/record.err
gpuprobe-trace report --json /out/irq.trace >/out/irq.json 2>/out/report.err
traced=$(awk '$1 == "\"irq_count\":" { v = $2; sub(/,$/, "", v); print v; exit }' /out/irq.json)
echo "# $MODE: raised $N, /proc/interrupts delta $delta, gpuprobe (tracefs) irq_count ${traced:-none}"
check "$MODE: record --source tracefs exited 0" [ "$rc" = 0 ]
check "$MODE: /proc/interrupts delta = $N raised while recording" [ "$delta" = "$N" ]
check "$MODE: gpuprobe's irq_count = /proc/interrupts delta" [ "${traced:-x}" = "$delta" ]
finish
