#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host side of the nested tests (scripts/nested.sh, tier "nested" of
# scripts/test.sh).  For each source named, records the inner VM -- QEMU is
# the workload -- while the guest's edu driver raises 1 interrupt (marker
# A), maps and unmaps a 4 KiB buffer M times, raises 1 more (marker B), then
# N-1 more (guest_edu.sh).  Then, exactly:
#   * N+1 vfio-msi interrupts of edu in the trace, and N+1 in the host's
#     /proc/interrupts (the vfio-msi line, read while the guest lives);
#   * N+1 of them delivered by KVM inside their host handler and injected
#     into the guest by QEMU's process (report --json, key kvm);
#   * VFIO's IOMMU maps for the VM between A and B, by QEMU's process (and
#     on edu's domain, from the module): M with a vIOMMU in the guest (each
#     guest map becomes a host map), 0 without (guest memory was pinned and
#     mapped once, at VM start: at least its 256 MiB, before A).
# usage: host_tests.sh N M SOURCE...   (the guest command: guest_edu.sh N M)
N=$1
M=$2
shift 2
. /gpuprobe/tests/ktap.sh

insmod /gpuprobe/gpuprobe.ko 2>/dev/null
echo "# edu at $EDU, vIOMMU in the guest: $NESTED_VIOMMU; N=$N M=$M"

# A value of the first "key": after the line matching start in report.json.
json_after() {	# file start key
	awk -v s="$2" -v k="\"$3\":" '$0 ~ s { on = 1 } on && $1 == k {
		v = $2; sub(/,$/, "", v); print v; exit }' "$1"
}

# Counts over the CSV: irq records of edu, IOMMU maps between the first two.
csv_counts() {	# csv bdf pid
	awk -F, -v bdf="$2" -v pid="$3" '
		$1 == "irq" && $5 == bdf { irq[n++] = $2 }
		$1 == "iommu" && $9 == 1 && $16 == pid { map[m] = $2; mb[m] = $5; sz[m++] = $11 }
		END {
			a = n > 0 ? irq[0] : 0; b = n > 1 ? irq[1] : 0
			for (i = 0; i < m; i++) {
				if (map[i] < a) { before++; before_bytes += sz[i] }
				else if (map[i] < b) { between++; if (mb[i] == bdf) on_edu++ }
			}
			printf "%d %d %d %d %d\n", n, before + 0, before_bytes + 0, between + 0, on_edu + 0
		}' "$1"
}

# One recording of the inner VM; 97 when the inner guest never got going:
# under TCG the nested guest now and then hangs at boot, spinning with
# interrupts off (Documentation/vmtest.rst), an emulator fault, not ours.
# It normally finishes in 15-40 s; when the recording has not ended after
# HANG_S, QEMU is killed, what every thread of the recorder and of QEMU was
# doing is printed (and kept in OUT/hang.txt), and the caller tries once
# more when the guest's init had not finished.  98 when the recorder itself
# does not end within 30 s of QEMU's death: a hang of ours, a failure.
HANG_S=${HANG_S:-150}
hang_report() {	# out why
	{
		echo "# $2, $(($(date +%s) - start)) s into the recording; the guest's console ends:"
		tail -n 4 /tmp/guest-console.log 2>/dev/null | tr -d '\r' | sed 's/^/#   | /'
		for p in $rec $qpid; do
			for t in /proc/"$p"/task/*; do
				[ -r "$t/comm" ] || continue
				echo "#   $p/${t##*/} $(cat "$t/comm") $(grep '^State' "$t/status" | tr -s '\t ' ' ') wchan $(cat "$t/wchan" 2>/dev/null)"
				sed 's/^/#     /' "$t/stack" 2>/dev/null
			done
		done
	} | tee -a "$1/hang.txt"
}
record_inner() {	# src out
	rm -rf /tmp/guest-out/* /tmp/guest-console.log /out/inner-vm.pid
	gpuprobe-trace record -q --source "$1" -d "$EDU" -o "$2/host.trace" -- inner-vm &
	rec=$!
	start=$(date +%s)
	killed=
	guest_hung=
	# the kernel's count: the vfio-msi line exists while QEMU has MSI on
	while kill -0 $rec 2>/dev/null; do
		grep "vfio-msi.*($EDU)" /proc/interrupts >"$2/irq.now" 2>/dev/null &&
			cp "$2/irq.now" "$2/proc-interrupts"
		el=$(($(date +%s) - start))
		if [ -z "$killed" ] && [ $el -gt "$HANG_S" ]; then
			qpid=$(cat /out/inner-vm.pid 2>/dev/null)
			fin=yes
			grep -q GPUPROBE-GUEST-EXIT /tmp/guest-console.log 2>/dev/null ||
				{ guest_hung=1; fin=no; }
			hang_report "$2" "$1: the recording had not ended in $HANG_S s (the guest's init finished: $fin)"
			[ -n "$qpid" ] && kill -9 "$qpid" 2>/dev/null
			killed=$el
		elif [ -n "$killed" ] && [ $el -gt $((killed + 30)) ]; then
			hang_report "$2" "$1: the recorder had not ended 30 s after ${qpid:+QEMU was killed}${qpid:-its end was due (no QEMU pid: inner-vm never ran)}"
			kill -9 $rec 2>/dev/null
			wait $rec
			return 98
		fi
		sleep 0.2
	done
	wait $rec
	rc=$?
	[ -n "$guest_hung" ] && return 97
	return $rc
}

for src in "$@"; do
	out=/out/$src
	mkdir -p "$out"
	record_inner "$src" "$out"
	rc=$?
	if [ $rc -eq 97 ]; then
		echo "# $src: the inner guest had not finished in ${HANG_S} s (a nested TCG hang): killed, once more"
		rm -f "$out/proc-interrupts"
		record_inner "$src" "$out"
		rc=$?
	fi
	check "$src: record of the inner VM exits 0" [ $rc -eq 0 ]
	qpid=$(cat /out/inner-vm.pid)
	cp /tmp/guest-out/edu-stats "$out/" 2>/dev/null
	check "$src: the guest raised and handled N+1=$((N + 1))" \
		grep -qx "irq_handled $((N + 1))" "$out/edu-stats"
	gpuprobe-trace report --json "$out/host.trace" >"$out/report.json"
	gpuprobe-trace report "$out/host.trace" >"$out/report.txt"
	gpuprobe-trace export "$out/host.trace" --csv "$out/host.csv"
	kcount=$(awk '{ s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s }' \
		"$out/proc-interrupts" 2>/dev/null)
	read -r irqs before before_bytes between on_edu <<EOF
$(csv_counts "$out/host.csv" "$EDU" "$qpid")
EOF
	injected=$(json_after "$out/report.json" '"kvm":' injected)
	by=$(json_after "$out/report.json" '"injected_by":' pid)
	by_count=$(json_after "$out/report.json" '"injected_by":' count)
	echo "# $src: $irqs vfio-msi irqs (kernel: $kcount), $injected injected (pid $by: $by_count, QEMU $qpid); IOMMU maps by QEMU: $before before A ($before_bytes bytes), $between between A and B ($on_edu on edu)"
	check "$src: N+1 vfio-msi interrupts of edu recorded" [ "$irqs" = $((N + 1)) ]
	check "$src: the host's /proc/interrupts counted N+1" [ "$kcount" = $((N + 1)) ]
	check "$src: N+1 delivered by KVM and injected" [ "$injected" = $((N + 1)) ]
	check "$src: every injection by QEMU's process" \
		sh -c '[ "$1" = "$2" ] && [ "$3" = "$4" ]' _ "$by" "$qpid" "$by_count" $((N + 1))
	if [ "$NESTED_VIOMMU" = 1 ]; then
		check "$src: M guest maps, M host IOMMU maps by QEMU between A and B" \
			[ "$between" = "$M" ]
		[ "$src" = module ] &&
			check "$src: ... all on edu's domain" [ "$on_edu" = "$M" ]
	else
		check "$src: no host IOMMU map for the guest's M maps" [ "$between" = 0 ]
		check "$src: guest memory mapped once at VM start (>= 256 MiB before A)" \
			[ "$before_bytes" -ge 268435456 ]
	fi
done
finish
