#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host side of the testbed's "% of base" table (scripts/nested.sh, tier 3e
# of scripts/test.sh; the guest command: guest_probe.sh R).  The same edu
# workload, `gpuprobe-trace probe --api edu --rounds R`:
#   base         edu driven by the outer VM itself (the testbed's bare
#                metal): unbound from vfio-pci, bound to gpuprobe_edu ->
#                /out/base.json; once more under `record` (SOURCE) -> base.trace
#   passthrough  edu back on vfio-pci, passed through to the inner guest:
#   viommu       the same with a vIOMMU in the guest.  For each, one inner
#                VM: the guest's probe untraced -> CFG/guest/guest.json,
#                then again under `record --guest vsock:3` (SOURCE on both
#                sides) -> CFG/merged.trace, where the difference went;
#                `compare base.json CFG/guest/guest.json` -> CFG/compare.txt
# and the two side by side in /out/table.txt.
# Exactly: every probe has R samples (dma.verify.2KiB R/10, rounded up); the
# driver's counters on each side moved by the workload; compare has a row
# for every probe; the merged trace holds every guest interrupt on both
# sides, each injected by KVM, and with a vIOMMU one host IOMMU map per
# guest map (none without).  No time is a pass criterion: the numbers are
# the results.  The host needs its memory below 4 GiB (nested.sh -m 2560M):
# the base's DMA maps must not bounce through swiotlb where the guest's do not.
# The module, where a source needs it, is loaded only around the traced
# runs: its probes are not there while the untraced ones run.
# usage: base_table.sh R [SOURCE]   (module or tracefs, default module)
# (the checks of R rounds and the table: selftests/gpuprobe/probe_table.sh,
# shared with vm/container_table.sh)
SRC=${2:-module}
. /gpuprobe/tests/ktap.sh
. /gpuprobe/tests/probe_table.sh
probe_table_rounds "$1"

echo "# edu at $EDU; R=$R, traced with the $SRC source"
PCI=/sys/bus/pci
# The host's IOMMU maps in a merged report --json: every target's (the
# module charges VFIO's to edu's domain, tracefs to no device).
host_iommu_maps() {	# file
	awk '/"machines":/ { exit } /"map": \{/ { m = 1; next }
		m && $1 == "\"count\":" { v = $2; sub(/,$/, "", v); s += v; m = 0 }
		END { print s + 0 }' "$1"
}
bind_to() {	# driver
	cur=$(basename "$(readlink "$PCI/devices/$EDU/driver")" 2>/dev/null)
	[ -n "$cur" ] && echo "$EDU" >"$PCI/drivers/$cur/unbind"
	echo "$1" >"$PCI/devices/$EDU/driver_override"
	echo "$EDU" >"$PCI/drivers_probe"
	[ "$(basename "$(readlink "$PCI/devices/$EDU/driver")")" = "$1" ]
}
# The first "key": value of a report --json after the line matching start.
json_after() {	# file start key
	awk -v s="$2" -v k="\"$3\":" '$0 ~ s { on = 1 }
		on && $1 == k { v = $2; sub(/,$/, "", v); print v; exit }' "$1"
}

tracer_load() {
	[ "$SRC" = module ] && insmod /gpuprobe/gpuprobe.ko
	return 0
}
tracer_unload() {
	[ "$SRC" = module ] && rmmod gpuprobe
	return 0
}

# ---- the probe's refusals, for real: not loaded, bound elsewhere, none bound ----
gpuprobe-trace probe --api edu -d "$EDU" >/out/err-notloaded.txt 2>&1
check "probe --api edu before gpuprobe_edu is loaded: exit 1, says insmod" \
	sh -c '[ $1 -eq 1 ] && grep -q "gpuprobe_edu driver is not loaded.*insmod" "$2"' _ $? /out/err-notloaded.txt
insmod /gpuprobe/gpuprobe_edu.ko
gpuprobe-trace probe --api edu -d "$EDU" >/out/err-vfio.txt 2>&1
check "probe -d on edu bound to vfio-pci: exit 1, names vfio-pci" \
	sh -c '[ $1 -eq 1 ] && grep -q "$2 is bound to vfio-pci, not gpuprobe_edu" "$3"' _ $? "$EDU" /out/err-vfio.txt
gpuprobe-trace probe --api edu >/out/err-none.txt 2>&1
check "probe with no edu bound to gpuprobe_edu: exit 1, says bind one" \
	sh -c '[ $1 -eq 1 ] && grep -q "drives no edu device" "$2"' _ $? /out/err-none.txt

# One CPU for what the table times: edu's MSI (the affinity an irq gets
# when it is requested), the probe on the host, the inner VM's QEMU.  The
# guest has one vCPU, where its handler and the waiting thread always share
# a CPU; on the host a wake-up across CPUs takes several times as long
# (base-xcpu.json: the probe on the other CPU, for the record).
CPU=1
echo 2 >/proc/irq/default_smp_affinity

# ---- base: the outer VM drives edu itself ----
check "edu unbound from vfio-pci, bound to gpuprobe_edu" bind_to gpuprobe_edu
irq=$(awk '$1 == "irq" { print $2 }' "/sys/kernel/debug/gpuprobe_edu/$EDU/stats")
check "base: edu's MSI (irq $irq) on CPU $CPU" [ "$(cat "/proc/irq/$irq/effective_affinity_list")" = $CPU ]
taskset -c $CPU gpuprobe-trace probe --api edu -d "$EDU" --rounds "$R" -o /out/base.json >/out/base.txt 2>&1
check "base: probe exits 0" [ $? -eq 0 ]
sed 's/^/# base: /' /out/base.txt
cp "/sys/kernel/debug/gpuprobe_edu/$EDU/stats" /out/base-stats
check "base: R samples per probe (dma R/10)" counts_match /out/base.json
check "base: the driver's counters are exactly the workload's" stats_match /out/base-stats
check "base: the probe's own counter check passed (no reason)" sh -c '! grep -q "\"reason\"" /out/base.json'
taskset -c $((1 - CPU)) gpuprobe-trace probe --api edu -d "$EDU" --rounds "$R" -o /out/base-xcpu.json \
	>/out/base-xcpu.txt 2>&1
check "base, the probe on the other CPU: exits 0" [ $? -eq 0 ]
grep irq.round_trip /out/base-xcpu.txt | sed 's/^/# base, the probe on the other CPU: /'
tracer_load
taskset -c $CPU gpuprobe-trace record -q --source "$SRC" -d "$EDU" -o /out/base.trace -- \
	gpuprobe-trace probe --api edu -d "$EDU" --rounds "$R" -o /out/base-traced.json >/dev/null 2>&1
check "base: the traced run exits 0" [ $? -eq 0 ]
tracer_unload
gpuprobe-trace report /out/base.trace >/out/base-report.txt
gpuprobe-trace report --json /out/base.trace >/out/base-report.json
check "base: no swiotlb bounce (the host's memory is below 4 GiB)" \
	[ "$(json_after /out/base-report.json '"swiotlb":' bounces)" = 0 ]
check "edu back on vfio-pci" bind_to vfio-pci

# ---- the guest, without and with a vIOMMU ----
echo "nested-base-table-token" >/tmp/token
chmod 600 /tmp/token
# One inner VM: its untraced probe alone (nothing traces until the guest
# says it is done), then `record --guest` of its traced one.  2 when the
# inner guest never got going: under TCG the nested guest now and then
# hangs at boot (host_tests.sh); QEMU is killed, the caller tries again.
HANG_S=${HANG_S:-150}
inner_run() {	# out
	rm -rf /tmp/guest-out/* /tmp/guest-console.log "$1/vfio-msi"
	taskset -c $CPU inner-vm >"$1/inner-vm.log" 2>&1 &
	q=$!
	start=$(date +%s)
	while kill -0 $q 2>/dev/null && [ ! -e /tmp/guest-out/untraced.done ]; do
		if [ $(($(date +%s) - start)) -gt "$HANG_S" ]; then
			kill -9 $q
			wait $q
			return 2
		fi
		sleep 1
	done
	# edu's vfio-msi line (it exists while QEMU has MSI on): its per-CPU counts
	grep "vfio-msi.*($EDU)" /proc/interrupts >"$1/vfio-msi"
	echo "# guest's untraced probe done $(($(date +%s) - start)) s after the inner VM's start"
	tries=0
	tracer_load
	while [ -e /tmp/guest-out/untraced.done ]; do	# until its agent listens
		gpuprobe-trace record -q --source "$SRC" -d "$EDU" -o "$1/merged.trace" \
			--guest vsock:3 --token-file /tmp/token --guest-source "$SRC" \
			--guest-target 0000:00:01.0 --guest-vmm $q \
			--guest-command "gpuprobe-trace probe --api edu --rounds $R -o /out/guest-traced.json >/dev/null && cat /sys/kernel/debug/gpuprobe_edu/*/stats >/out/guest-stats-traced" \
			2>"$1/record.err" && break
		tries=$((tries + 1))
		[ $tries -lt 30 ] && kill -0 $q 2>/dev/null || break
		sleep 1
	done
	tracer_unload
	wait $q
	[ -s "$1/merged.trace" ]
}

for CFG in passthrough viommu; do
	out=/out/$CFG
	G=$out/guest
	mkdir -p "$out"
	NESTED_VIOMMU=$([ $CFG = viommu ] && echo 1 || echo 0)
	export NESTED_VIOMMU
	inner_run "$out"
	rc=$?
	if [ $rc -eq 2 ]; then
		echo "# $CFG: the inner guest had not finished its probe in ${HANG_S} s (a nested TCG hang): killed, once more"
		inner_run "$out"
		rc=$?
	fi
	cp -r /tmp/guest-out "$G"
	cp /tmp/guest-console.log "$out/" 2>/dev/null
	check "$CFG: the inner VM ran the probe, then recorded it (agent reached after $tries tries)" [ $rc -eq 0 ]
	sed "s/^/# $CFG: /" "$G/guest-probe.txt"
	check "$CFG: every vfio-msi interrupt of edu on CPU $CPU, the guest's $GIRQS untraced ones at least" \
		awk -v c=$CPU -v n=$GIRQS '{ exit !($(2 + c) >= n && $(3 - c) == 0) }' "$out/vfio-msi"
	check "$CFG: guest: R samples per probe (dma R/10)" counts_match "$G/guest.json"
	check "$CFG: guest: the driver's counters are exactly the workload's" stats_match "$G/guest-stats"
	check "$CFG: guest: the probe's own counter check passed (no reason)" \
		sh -c '! grep -q "\"reason\"" "$1"' _ "$G/guest.json"
	tail -n 3 "$out/record.err" | sed "s/^/# $CFG: /"

	gpuprobe-trace compare /out/base.json "$G/guest.json" >"$out/compare.txt"
	check "$CFG: compare base guest exits 0" [ $? -eq 0 ]
	gpuprobe-trace compare /out/base.json "$G/guest.json" --json >"$out/compare.json"
	sed "s/^/# $CFG: /" "$out/compare.txt"
	check "$CFG: compare: a row for every probe, none unmatched" compare_rows_match "$out/compare.txt"

	# where the difference went
	m=$out/merged.json
	gpuprobe-trace report "$out/merged.trace" >"$out/merged.txt"
	gpuprobe-trace report --json "$out/merged.trace" >"$m"
	sed -n '/^passthrough/,/^$/p' "$out/merged.txt" | sed "s/^/# $CFG: /"
	pt='"passthrough":'
	host_maps=$(host_iommu_maps "$m")
	echo "# $CFG merged: $(json_after "$m" "$pt" host_irqs) host and $(json_after "$m" "$pt" guest_irqs) guest interrupts, $(json_after "$m" "$pt" irq_paired) paired, $(json_after "$m" "$pt" order_violations) order violations; $(json_after "$m" "$pt" guest_dma_maps) guest maps, $host_maps host IOMMU maps, $(json_after "$m" "$pt" dma_paired) paired"
	check "$CFG: merged: two machines" [ "$(grep -c '"role": "' "$m")" = 2 ]
	check "$CFG: merged: the guest's R + 2 R/10 = $GIRQS interrupts on both sides" \
		[ "$(json_after "$m" "$pt" host_irqs)/$(json_after "$m" "$pt" guest_irqs)" = "$GIRQS/$GIRQS" ]
	check "$CFG: merged: every one delivered by KVM and injected" \
		[ "$(json_after "$m" '"kvm":' injected)" = "$GIRQS" ]
	check "$CFG: merged: no order violation" [ "$(json_after "$m" "$pt" order_violations)" = 0 ]
	check "$CFG: merged: the guest's $MAPS DMA maps" [ "$(json_after "$m" "$pt" guest_dma_maps)" = "$MAPS" ]
	if [ $CFG = viommu ]; then
		check "$CFG: merged: one host IOMMU map per guest map" [ "$host_maps" = "$MAPS" ]
	else
		check "$CFG: merged: no host IOMMU map for the guest's" [ "$host_maps" = 0 ]
	fi
	check "$CFG: merged: the traced guest probe's counters are the workload's, twice" sh -c '
		grep -qx "irq_raised $(($2 * 2))" "$1" && grep -qx "dma_maps $(($3 * 2))" "$1"' _ \
		"$G/guest-stats-traced" "$R" "$MAPS"
done

# ---- the table: both guests against the one base ----
probe_table passthrough /out/passthrough/compare.txt vIOMMU /out/viommu/compare.txt >/out/table.txt
sed 's/^/# table: /' /out/table.txt
finish
