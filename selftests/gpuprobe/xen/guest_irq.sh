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
# for edu must equal the /proc/interrupts delta.  And `info` must name the
# hypervisor and edu's chip as the kernel's files do.
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

# dom0's recording of Xen's side (dom0_xentrace.sh) starts when it sees
# this guest's command begin on its console: gpuprobe.xen_settle=SECS on
# the guest's command line (xen.sh -g) holds the first interrupt back so
# long, else Xen's count misses the first ones (not the test's way to pass:
# fewer seen fails it)
settle=$(sed -n 's/.*gpuprobe\.xen_settle=\([0-9]*\).*/\1/p' /proc/cmdline)
if [ -n "$settle" ]; then
	echo "# waiting ${settle}s for dom0's recording (gpuprobe.xen_settle)"
	sleep "$settle"
fi
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

# info says what the kernel's own files say: the hypervisor (sysfs where
# the kernel's Xen code made it; nopv has none, the testbed is Xen all the
# same) and edu's chip (its /proc/interrupts line's word after the counts)
gpuprobe-trace info -d "$EDU" >/out/info.txt 2>&1
sed -n '/^hypervisor:/p;/^targets:/,$s/^/# info: /p' /out/info.txt
gpuprobe-trace info --json -d "$EDU" >/out/info.json 2>/out/info-json.err
jget() { awk -v k="\"$1\":" '$1 == k { v = $2; sub(/,$/, "", v); gsub(/"/, "", v); print v; exit }' /out/info.json; }
ncpu=$(head -n1 /proc/interrupts | wc -w)
chip=$(echo "$line" | awk -v n="$ncpu" '{ print $(n + 2) }')
echo "# info --json: hypervisor $(jget name), guest_type '$(jget guest_type)', pv $(jget xen_pv_interfaces); edu chip $(jget chip), delivery $(jget delivery); /proc/interrupts chip $chip"
check "$MODE: info names the hypervisor xen" [ "$(jget name)" = xen ]
if [ -r /sys/hypervisor/type ]; then
	check "$MODE: info's hypervisor sysfs_type = /sys/hypervisor/type" \
		[ "$(jget sysfs_type)" = "$(cat /sys/hypervisor/type)" ]
	check "$MODE: info's guest_type = /sys/hypervisor/guest_type" \
		[ "$(jget guest_type)" = "$(cat /sys/hypervisor/guest_type)" ]
	check "$MODE: info says the PV interfaces are in use" [ "$(jget xen_pv_interfaces)" = true ]
else
	check "$MODE: no /sys/hypervisor/type, info says no PV interfaces" \
		[ "$(jget xen_pv_interfaces)" = false ]
fi
check "$MODE: info's chip for edu = /proc/interrupts' ($chip)" [ "$(jget chip)" = "$chip" ]
case $MODE in
pvhvm) check "pvhvm: info says edu's interrupts arrive as xen-pirq event channels" \
	[ "$(jget delivery)" = xen-pirq ] ;;
nopv) check "nopv: info says edu's interrupts arrive as plain MSI" [ "$(jget delivery)" = msi ] ;;
esac
traced_count tracefs
if insmod /gpuprobe/gpuprobe.ko "target=$EDU" 2>/out/insmod.err; then
	gpuprobe-trace info -d "$EDU" >/out/info-module.txt 2>&1
	sed -n '/^targets:/,$s/^/# info (module loaded): /p' /out/info-module.txt
	traced_count module
	rmmod gpuprobe
else
	fail "$MODE: gpuprobe.ko loads in the guest ($(cat /out/insmod.err))"
fi

# for dom0's xentrace check (dom0_xentrace.sh): every interrupt edu raised
# in this guest's life, and the vector its MSI data register names (the
# one Xen injects in nopv; x86 MSI data bits 0-7)
msi_vector() {	# BDF
	# the bytes once; then the shell's own words (a fresh process now and
	# then segfaults at its start under the nested TCG Xen: vmtest.rst)
	CFG=$(od -An -tx1 -v "/sys/bus/pci/devices/$1/config")
	p=$((0x$(cfg_byte 52)))
	while [ "$p" -ne 0 ]; do
		if [ "$(cfg_byte "$p")" = 05 ]; then
			d=$((p + 8))
			[ $((0x$(cfg_byte $((p + 2))) & 0x80)) = 0 ] || d=$((p + 12))
			echo $((0x$(cfg_byte "$d")))
			return
		fi
		p=$((0x$(cfg_byte $((p + 1)))))
	done
}
cfg_byte() {	# OFFSET: byte OFFSET of $CFG, in hex (00 past its end)
	i=$1
	# shellcheck disable=SC2086 # its words are the bytes
	set -- $CFG
	[ "$i" -lt $# ] || { echo 00; return; }
	shift "$i"
	echo "$1"
}
total=$(irq_sum)
vector=$(msi_vector "$EDU")
echo "$total" >/out/edu-irqs.total
echo "$vector" >/out/edu-msi-vector
echo "# edu: $total interrupts in this guest's life; MSI data vector $vector"
finish
