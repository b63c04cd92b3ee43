#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM: the parts of edu's DMA map/unmap calls
# (Documentation/iommu.md), exact against the edu driver's own counters and
# against the VT-d driver's intel_iommu:qi_submit tracepoint (read through
# tracefs, not by the module), in the mode the VM booted in: strict
# (iommu.strict=1, domain type DMA: one invalidation per unmap) or lazy
# (iommu.strict=0, DMA-FQ: unmaps deferred, invalidations batched).  Behind
# QEMU's AMD-Vi (VM_IOMMU=amd-iommu; the kernel forces strict there) the
# same checks but the tracepoint's: AMD's driver has none, its invalidations
# are counted against the edu driver's unmaps.
. /gpuprobe/tests/ktap.sh

N=${1:-200}
insmod /gpuprobe/gpuprobe.ko 2>/dev/null
insmod /gpuprobe/gpuprobe_edu.ko 2>/dev/null
EDU=$(basename "$(dirname "$(grep -l 0x11e8 /sys/bus/pci/devices/*/device)")")
CTL=/sys/kernel/debug/gpuprobe_edu/$EDU
TR=/sys/kernel/tracing
mount -t tracefs nodev $TR 2>/dev/null
TYPE=$(cat "/sys/bus/pci/devices/$EDU/iommu_group/type")
echo "edu at $EDU, domain type $TYPE, $(cat /proc/cmdline)"
VENDOR=none
ls /sys/class/iommu | grep -q '^dmar' && VENDOR=intel
ls /sys/class/iommu | grep -q '^ivhd' && VENDOR=amd
echo "IOMMU: $VENDOR ($(ls /sys/class/iommu | tr '\n' ' '))"
if [ $VENDOR = intel ] && [ ! -d $TR/events/intel_iommu/qi_submit ]; then
	echo "# SKIP no intel_iommu:qi_submit tracepoint"
	exit 4
fi

grep -wE 'queue_iova|fq_flush_timeout|intel_flush_iotlb_all|intel_iommu_map_pages|intel_iommu_unmap_pages|qi_submit_sync|amd_iommu_map_pages|amd_iommu_unmap_pages|amd_iommu_iotlb_sync|amd_iommu_flush_iotlb_all' \
	/proc/kallsyms | awk '{ printf "%s ", $3 } END { print "in kallsyms" }'
stat() { awk -v k="$1" '$1 == k { print $2 }' "$CTL/stats"; }
# field $2 of part $1 (or a target key when $1 is "-") of edu in report --json $3
jget() {
	awk -v P="$1" -v K="\"$2\":" -v B="\"$EDU\"," '
		/"iommu_parts":/ { on = 1 }
		on && /"bdf":/ { mine = ($2 == B) }
		!mine { next }
		/"part":/ { p = $2; gsub(/[",]/, "", p) }
		$1 == K && ((P == "-" && p == "") || p == P) { v = $2; sub(/,$/, "", v); print v; exit }
' "$3"
}
# every argument after the first equals the first
all_eq() { _v=$1; shift; for _x; do [ "$_x" = "$_v" ] || return 1; done; }
# the domain ids (qw0 bits 31:16) of the IOTLB invalidations in the tracefs buffer
iotlb_dids() {
	awk '/qi_submit: iotlb_inv/ { for (i = 1; i <= NF; i++) if ($i ~ /^dmar[0-9]+:$/) print $(i + 1) }' \
		$TR/trace | while read -r q; do printf '%d\n' $(((q >> 16) & 0xffff)); done
}

# edu's domain id, from the invalidations of one map/unmap pair (and, in
# lazy mode, its flush-queue timer's, 10 ms later)
QI=$TR/events/intel_iommu/qi_submit/enable
[ $VENDOR = intel ] || QI=/dev/null
echo 0 >$TR/tracing_on
: >$TR/trace
echo 1 >$QI
echo 1 >$TR/tracing_on
echo "1 4096" >"$CTL/mapbench"
sleep 0.1
echo 0 >$TR/tracing_on
if [ $VENDOR = intel ]; then
	DID=$(iotlb_dids | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
	check "edu's domain id found from its invalidations" [ -n "$DID" ]
	echo "edu's domain id $DID"
fi

: >$TR/trace
maps0=$(stat dma_maps) unmaps0=$(stat dma_unmaps)
echo 1 >$TR/tracing_on
gpuprobe-trace record -q -d "$EDU" -o /tmp/parts.trace -- \
	sh -c "gpuprobe-trace info >/tmp/info-parts.txt; echo '$N 4096' > $CTL/mapbench; sleep 0.1"
check "record exits 0" [ $? -eq 0 ]
# the module's own hook list while the session ran
check "the session asked for parts: alloc_iova_fast's probe attached" \
	grep -q 'hook kretprobe:alloc_iova_fast *attached$' /tmp/info-parts.txt
echo 0 >$TR/tracing_on
echo 0 >$QI
maps=$(($(stat dma_maps) - maps0)) unmaps=$(($(stat dma_unmaps) - unmaps0))
desc=$(iotlb_dids | awk -v D="${DID:-}" '$1 == D { n++ } END { print n + 0 }')
gpuprobe-trace report /tmp/parts.trace | sed -n '/^IOMMU parts/,/^$/p'
gpuprobe-trace report --json /tmp/parts.trace >/tmp/parts.json
echo "edu counted $maps maps, $unmaps unmaps; tracefs: $desc IOTLB invalidation descriptors of domain ${DID:-(none: $VENDOR)}"

check "edu did exactly $N maps and $N unmaps" all_eq "$N" "$maps" "$unmaps"
check "module: $N maps and $N unmaps timed" \
	all_eq "$N" "$(jget - maps /tmp/parts.json)" "$(jget - unmaps /tmp/parts.json)"
for p in iova_alloc pgtable_map pgtable_unmap; do
	check "$p: $N, all inside the calls" \
		all_eq "$N" "$(jget $p count /tmp/parts.json)" "$(jget $p in_call /tmp/parts.json)"
done
check "iova_free: $N (every IOVA freed once)" [ "$(jget iova_free count /tmp/parts.json)" = "$N" ]
check "no call's parts add up to more than the call" [ "$(jget - calls_over /tmp/parts.json)" = 0 ]
check "every part's call is in the trace" [ "$(jget - orphans /tmp/parts.json)" = 0 ]
inv=$(jget invalidate count /tmp/parts.json) invd=$(jget invalidate arg_sum /tmp/parts.json)
echo "module: $inv invalidations ($invd descriptors), $(jget defer count /tmp/parts.json) deferrals"
if [ $VENDOR = intel ]; then
	check "invalidation descriptors: module = tracefs qi_submit of edu's domain" [ "${invd:-0}" -eq "$desc" ]
else
	# one 4 KiB page a flush: the pages the module read from each gather
	check "$VENDOR: the invalidations' ranges cover $N pages" [ "${invd:-0}" -eq "$N" ]
fi
gpuprobe-trace report /tmp/parts.trace | sed -n '/^IOMMU mode/,/^$/p'
mode=$(gpuprobe-trace report /tmp/parts.trace | grep -A1 "^  $EDU:$" | sed -n 's/.*IOMMU: //p')
want="$VENDOR, domain $TYPE: $([ "$TYPE" = DMA ] && echo strict || echo lazy)"
check "the trace states edu's mode: $want" sh -c 'case "$1" in "$2"*) exit 0 ;; esac; exit 1' _ "$mode" "$want"
if [ "$TYPE" = DMA ]; then
	check "strict: one invalidation per unmap, inside it" \
		all_eq "$N" "$inv" "$(jget invalidate in_call /tmp/parts.json)"
	check "strict: nothing deferred" [ -z "$(jget defer count /tmp/parts.json)" ]
	check "strict: no unmap inferred deferred, none without its invalidation" \
		all_eq 0 "$(jget - unmaps_deferred /tmp/parts.json)" "$(jget - unmaps_uninvalidated /tmp/parts.json)"
else
	# queue_iova() is static: where the compiler inlined it (Debian's 6.1)
	# the deferral is not a part of its own and stays in "other"
	# every unmap deferred, counted by inference whether or not queue_iova
	# has a part (page tables cleared, no invalidation of its own)
	check "lazy: every unmap deferred (inferred)" \
		all_eq "$N" "$(jget - unmaps_deferred /tmp/parts.json)" "$((N - $(jget - unmaps_uninvalidated /tmp/parts.json)))"
	if grep -q ' queue_iova$' /proc/kallsyms; then
		check "lazy: every unmap deferred" [ "$(jget defer count /tmp/parts.json)" = "$N" ]
	else
		check "lazy: no deferral part without queue_iova" [ -z "$(jget defer count /tmp/parts.json)" ]
	fi
	check "lazy: the flush-queue timer flushed edu's domain, outside the calls" \
		[ "$(jget fq_timer count /tmp/parts.json)" -ge 1 ]
	check "lazy: invalidations batched (at least one, fewer than a quarter of the unmaps)" \
		[ "${inv:-0}" -ge 1 -a "${inv:-0}" -lt $((N / 4)) ]
fi

# record --no-iommu-parts: the module attaches no parts probe (every
# device's IOVA and page-table calls would pay its mechanism), the calls
# are still recorded whole, and the report says the parts were left out
maps0=$(stat dma_maps) unmaps0=$(stat dma_unmaps)
gpuprobe-trace record -q --no-iommu-parts -d "$EDU" -o /tmp/noparts.trace -- \
	sh -c "gpuprobe-trace info >/tmp/info-noparts.txt; echo '$N 4096' > $CTL/mapbench; sleep 0.1"
check "record --no-iommu-parts exits 0" [ $? -eq 0 ]
maps=$(($(stat dma_maps) - maps0)) unmaps=$(($(stat dma_unmaps) - unmaps0))
grep 'hook kretprobe:alloc_iova_fast' /tmp/info-noparts.txt
check "--no-iommu-parts: alloc_iova_fast's probe not attached, and why" \
	grep -q 'hook kretprobe:alloc_iova_fast *not attached: left out: the session did not ask for IOMMU parts$' \
	/tmp/info-noparts.txt
check "--no-iommu-parts: no parts probe attached at all" \
	sh -c '! grep -E "hook k(ret)?probe:(alloc_iova|free_iova|intel_|amd_|qi_submit|queue_iova|fq_flush)[a-z_]* *attached$" /tmp/info-noparts.txt'
gpuprobe-trace export --csv /tmp/noparts.csv /tmp/noparts.trace
# rows of type $1, edu's, with op $2 (csv: type,ts_ns,cpu,flags,bdf,irq,vector,duration_ns,op,...)
rows() { awk -F, -v T="$1" -v O="$2" -v B="$EDU" '$1 == T && $5 == B && (O == "" || $9 == O) { n++ } END { print n + 0 }' /tmp/noparts.csv; }
# a part row has no bdf column (csv.c): every part row counts; the same
# count finds the first recording's parts
parts_rows() { awk -F, '$1 == "iommu_part"' "$1" | wc -l; }
gpuprobe-trace export --csv /tmp/parts.csv /tmp/parts.trace
check "the recording with parts has part rows ($(parts_rows /tmp/parts.csv))" [ "$(parts_rows /tmp/parts.csv)" -gt 0 ]
check "--no-iommu-parts: no part record" [ "$(parts_rows /tmp/noparts.csv)" -eq 0 ]
check "--no-iommu-parts: edu's $N maps and $N unmaps recorded as DMA calls (edu counted $maps, $unmaps)" \
	all_eq "$N" "$maps" "$unmaps" "$(rows dma 1)" "$(rows dma 2)"
check "--no-iommu-parts: edu's $N IOMMU maps recorded" [ "$(rows iommu 1)" -eq "$N" ]
gpuprobe-trace report /tmp/noparts.trace | grep 'parts of each'
check "--no-iommu-parts: the report says the parts were not recorded" \
	sh -c 'gpuprobe-trace report /tmp/noparts.trace | grep -q "parts of each map/unmap: not recorded (record --no-iommu-parts)"'
check "--no-iommu-parts: report --json: parts_left_out, iommu_parts null" \
	sh -c 'gpuprobe-trace report --json /tmp/noparts.trace | tr -d " \n" | grep -q "\"parts_left_out\":true.*\"iommu_parts\":null"'
finish
