#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Xen's side of edu's interrupts, in dom0 (issue 26 item 3, its start):
# for each MODE a guest runs its command (guest_irq.sh) while
# `gpuprobe-trace record --source xentrace` records Xen's trace buffers.
# The expectations come from outside the tool: edu's Xen irq from Xen's own
# irq table (`xl debug-keys i`: the PCI-MSI irq bound to the guest's
# domain), and the interrupts edu raised in the guest's life (its
# /proc/interrupts line at the end of guest_irq.sh, printed on the
# guest's console).  Xen's physical-irq records of that irq must number
# exactly that; in nopv Xen's injections of edu's vector (its MSI data
# register) too; in pvhvm the upcall vector 0xf3 at least that often (it
# carries every event channel: timers, xenbus, ...).
# The guest must hold its first interrupt back until the recording runs:
# gpuprobe.xen_settle=SECS on its command line (guest_irq.sh).
# usage: dom0_xentrace.sh MODE...   (xen.sh -g gpuprobe.xen_settle=30
#        --dom0 'sh tests/dom0_xentrace.sh pvhvm nopv' --guest 'sh tests/guest_irq.sh 50')
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

# a guest's domain is gone: absent from two xl lists in a row (a
# segfaulting xl says nothing either way)
wait_gone() {	# NAME
	gone=0
	for _ in $(seq 120); do
		if xl list 2>/dev/null | grep -q "^$1 "; then
			gone=0
		elif xl list >/dev/null 2>&1; then
			gone=$((gone + 1))
			[ "$gone" -ge 2 ] && return 0
		fi
		sleep 5
	done
	return 1
}

for MODE in "$@"; do
	id=$(xen-guest-start "$MODE") || { sleep 10; id=$(xen-guest-start "$MODE"); } ||
		{ fail "$MODE: the guest started"; continue; }
	name=$(xl_retry xl domname "$id")
	con=/tmp/guest-$name/console.log
	# recording starts with the guest's command: its boot (kernel and
	# initramfs read a port at a time through fw_cfg) would be most of
	# Xen's records, and edu raises nothing before
	t=0
	while ! grep -q GPUPROBE-GUEST-START "$con" 2>/dev/null && [ "$t" -lt "${XEN_GUEST_TIMEOUT:-720}" ]; do
		sleep 1
		t=$((t + 1))
	done
	echo "# $MODE: guest $name (d$id) at its command after ${t}s; recording"
	edu_xen_irq "$id" >"/tmp/xen-irq-$MODE" &
	finder=$!
	# until the guest has sent its /out on its console (it powers off
	# then): grep and sleep only, since a busybox applet or xl now and then
	# segfaults at its start here (vmtest.rst) and a failed grep only
	# waits longer.  xentrace writes to dom0's tmpfs: to a 9p file its
	# write of Xen's mapped buffers fails (EFAULT, vmtest.rst)
	# shellcheck disable=SC2016 # the inner shell's $1, $2
	TMPDIR=/tmp gpuprobe-trace record --no-inject --source xentrace --xentrace-file "/tmp/xt-$MODE.bin" \
		-o "/out/xen-$MODE.trace" -- \
		sh -c 't=0; while ! grep -q "^GPUPROBE-OUT-END" "$1" 2>/dev/null; do sleep 5; t=$((t + 5)); [ "$t" -lt "$2" ] || exit 1; done' \
		sh "$con" "${XEN_GUEST_TIMEOUT:-720}" 2>"/out/record-xen-$MODE.err"
	rc=$?
	wait "$finder"
	# its /out, and its output (its tally among it: xen.sh adds it up)
	xen-guest-wait "$id" || echo "# $MODE: xen-guest-wait failed (its /out may be missing; the console is read below)"
	wait_gone "$name" || echo "# $MODE: $name still listed"
	sed "s/^/# record ($MODE): /" "/out/record-xen-$MODE.err"
	cp "/tmp/xt-$MODE.bin" "/out/xt-$MODE.bin"
	cp "$con" "/out/console-$MODE.log"
	gpuprobe-trace report --json "/out/xen-$MODE.trace" >"/out/xen-$MODE.json" 2>"/out/report-xen-$MODE.err"
	irq=$(cat "/tmp/xen-irq-$MODE")
	# the guest's own line (guest_irq.sh), from its console as dom0 has it
	edu=$(tr -d '\r' <"$con" | sed -n 's/^# edu: \([0-9]*\) interrupts in this guest.s life; MSI data vector \([0-9]*\)$/\1 \2/p')
	total=${edu% *}
	vec=${edu#* }
	grc=$(tr -d '\r' <"$con" | sed -n 's/^GPUPROBE-GUEST-EXIT \([0-9]*\)$/\1/p')
	phys=$(xen_count "/out/xen-$MODE.json" irq "$irq" count)
	lost=$(jget "/out/xen-$MODE.json" lost)
	echo "# $MODE: xentrace $(wc -c <"/out/xt-$MODE.bin") bytes; edu's Xen irq ${irq:-?} ($(cat /out/xen-irq-table-d"$id".txt 2>/dev/null)); guest: exit ${grc:-?}, edu raised ${total:-?}, MSI vector ${vec:-?}; Xen: ${phys:-none} physical irqs of irq ${irq:-?}, lost ${lost:-?}"
	awk '/"vectors":/,/]/' "/out/xen-$MODE.json" | tr -d ' \n' | sed 's/^/# injections: /; s/$/\n/'
	check "$MODE: record --source xentrace exited 0 (the guest's console complete)" [ "$rc" = 0 ]
	check "$MODE: the guest's command exited 0" [ "${grc:-x}" = 0 ]
	check "$MODE: Xen's irq table names edu's irq for d$id" [ -n "$irq" ]
	check "$MODE: the guest said how many interrupts edu raised" [ -n "$total" ]
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
done
finish
