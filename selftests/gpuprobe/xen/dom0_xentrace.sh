#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Xen's side of edu's interrupts, in dom0 (issue 26 item 3, its start):
# for each MODE a guest runs its command (guest_irq.sh) while
# `gpuprobe-trace record --source xentrace` records Xen's trace buffers.
# The expectations come from outside the tool: edu's Xen irq from Xen's own
# irq table (`xl debug-keys i`: the PCI-MSI irq bound to the guest's
# domain), and the interrupts edu raised in the guest's life (its
# /proc/interrupts line at the end of guest_irq.sh, sent back in the
# guest's /out).  Xen's physical-irq records of that irq must number
# exactly that; in nopv Xen's injections of edu's vector (its MSI data
# register) too; in pvhvm the upcall vector 0xf3 at least that often (it
# carries every event channel: timers, xenbus, ...).
# usage: dom0_xentrace.sh MODE...   (xen.sh --dom0 'sh tests/dom0_xentrace.sh pvhvm nopv')
# shellcheck source=selftests/gpuprobe/ktap.sh
. /gpuprobe/tests/ktap.sh

jget() {	# FILE KEY: the first value of KEY in a pretty-printed JSON file
	awk -v k="\"$2\":" '$1 == k { v = $2; sub(/,$/, "", v); gsub(/"/, "", v); print v; exit }' "$1"
}
# xl now and then segfaults at its start in this dom0 (vmtest.rst): tried again
xl_retry() {
	for _ in 1 2 3; do "$@" && return 0; sleep 1; done
	return 1
}

# dom0 is a PV guest of Xen: info must say what its sysfs says
gpuprobe-trace info --json >/out/dom0-info.json 2>/out/dom0-info.err
echo "# dom0 info: hypervisor $(jget /out/dom0-info.json name), guest_type $(jget /out/dom0-info.json guest_type); /sys/hypervisor: $(cat /sys/hypervisor/type) $(cat /sys/hypervisor/guest_type)"
check "dom0: info names the hypervisor xen" [ "$(jget /out/dom0-info.json name)" = xen ]
check "dom0: info's guest_type = /sys/hypervisor/guest_type" \
	[ "$(jget /out/dom0-info.json guest_type)" = "$(cat /sys/hypervisor/guest_type)" ]

# Xen's irq of edu's MSI once the guest's driver has it: Xen's table
# ('i' key: "IRQ:  27 vec:d8 PCI-MSI ... d1: 55(---)": irq, domain, pirq)
edu_xen_irq() {	# DOMID
	for _ in $(seq 60); do
		sleep 10
		xl debug-keys i 2>/dev/null || continue
		line=$(xl dmesg 2>/dev/null | grep -E "IRQ: *[0-9]+ .*MSI.* d$1: *[0-9]+" | tail -n1)
		if [ -n "$line" ]; then
			echo "$line" >"/out/xen-irq-table-d$1.txt"
			echo "$line" | sed 's/.*IRQ: *\([0-9]*\) .*/\1/'
			return 0
		fi
	done
	return 1
}

# MODE's count in the "xen" object of a report: KEY VALUE COUNTKEY
xen_count() {	# JSON KEY VALUE COUNTKEY
	awk -v k="\"$2\":" -v want="$3" -v c="\"$4\":" '
		$1 == "\"xen\":" { inxen = 1 }
		inxen && $1 == k { v = $2; sub(/,$/, "", v); cur = v }
		inxen && $1 == c && cur == want { v = $2; sub(/,$/, "", v); print v; exit }' "$1"
}

for MODE in "$@"; do
	id=$(xen-guest-start "$MODE") || { fail "$MODE: the guest started"; continue; }
	name=$(xl_retry xl domname "$id")
	con=/tmp/guest-$name/console.log
	# recording starts with the guest's command: its boot (kernel and
	# initramfs read a port at a time through fw_cfg) would be most of
	# Xen's records, and edu raises nothing before
	t=0
	while ! grep -q GPUPROBE-GUEST-START "$con" 2>/dev/null && [ "$t" -lt "${XEN_GUEST_TIMEOUT:-720}" ]; do
		sleep 5
		t=$((t + 5))
	done
	echo "# $MODE: guest $name (d$id) at its command after ${t}s; recording"
	edu_xen_irq "$id" >"/tmp/xen-irq-$MODE" &
	finder=$!
	# xentrace writes to dom0's tmpfs: to a 9p file its write of Xen's
	# mapped buffers fails (EFAULT, Documentation/vmtest.rst)
	# the workload waits for the guest's end (xen-guest-wait again if its
	# xl segfaulted while the guest lives); $1 is the inner shell's
	# shellcheck disable=SC2016
	TMPDIR=/tmp gpuprobe-trace record --no-inject --source xentrace --xentrace-file "/tmp/xt-$MODE.bin" \
		-o "/out/xen-$MODE.trace" -- \
		sh -c 'until xen-guest-wait "$1"; do xl list "$1" >/dev/null 2>&1 || exit 1; done' sh "$id" \
		2>"/out/record-xen-$MODE.err"
	rc=$?
	wait "$finder"
	sed "s/^/# record ($MODE): /" "/out/record-xen-$MODE.err"
	cp "/tmp/xt-$MODE.bin" "/out/xt-$MODE.bin"
	gpuprobe-trace report --json "/out/xen-$MODE.trace" >"/out/xen-$MODE.json" 2>"/out/report-xen-$MODE.err"
	irq=$(cat "/tmp/xen-irq-$MODE")
	total=$(cat "/out/guest-$MODE/edu-irqs.total" 2>/dev/null)
	vec=$(cat "/out/guest-$MODE/edu-msi-vector" 2>/dev/null)
	phys=$(xen_count "/out/xen-$MODE.json" irq "$irq" count)
	lost=$(jget "/out/xen-$MODE.json" lost)
	echo "# $MODE: xentrace $(wc -c <"/out/xt-$MODE.bin") bytes; edu's Xen irq ${irq:-?} ($(cat /out/xen-irq-table-d"$id".txt 2>/dev/null)); guest: edu raised ${total:-?}, MSI vector ${vec:-?}; Xen: ${phys:-none} physical irqs of irq ${irq:-?}, lost ${lost:-?}"
	awk '/"vectors":/,/]/' "/out/xen-$MODE.json" | tr -d ' \n' | sed 's/^/# injections: /; s/$/\n/'
	check "$MODE: record --source xentrace exited with the guest's status 0" [ "$rc" = 0 ]
	check "$MODE: Xen's irq table names edu's irq for d$id" [ -n "$irq" ]
	check "$MODE: the guest sent edu's interrupt count" [ -n "$total" ]
	check "$MODE: Xen lost no trace records" [ "${lost:-x}" = 0 ]
	check "$MODE: Xen's physical irqs of edu's irq = the interrupts edu raised in the guest" \
		[ "${phys:-x}" = "${total:-y}" ]
	case $MODE in
	nopv)
		inj=$(xen_count "/out/xen-$MODE.json" vector "$vec" injections)
		echo "# nopv: vector $vec injected ${inj:-0} times"
		check "nopv: Xen's injections of edu's vector $vec = the interrupts edu raised" \
			[ "${inj:-x}" = "${total:-y}" ] ;;
	pvhvm)
		inj=$(xen_count "/out/xen-$MODE.json" vector 243 injections)
		echo "# pvhvm: upcall vector 0xf3 injected ${inj:-0} times"
		check "pvhvm: Xen's upcall injections (0xf3) >= the interrupts edu raised" \
			[ "${inj:-0}" -ge "${total:-1}" ] ;;
	esac
	while xl list "$id" >/dev/null 2>&1; do sleep 5; done
done
finish
