#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The seed paper's LXC row (issue 25) on the test VM: the same edu
# workload, `gpuprobe-trace probe --api edu --rounds R`, on the VM's host
# side and inside a container made here, compared with `compare`:
#   base       the host side (the VM itself), -> baseN.json
#   container  its own network, pid (pid 1 there, its own /proc), mount,
#              cgroup (a cgroup of its own as its root), UTS and IPC
#              namespaces, root of the host's user namespace (a privileged
#              LXC container) -> containerN.json
#   userns     the same in a user namespace of its own, root mapped to
#              root (an unprivileged one) -> usernsN.json
# in that order, REPS times over (base1 container1 userns1 base2 ...):
# under TCG the same side's p50 moves by more than half from one run to
# the next (the machine's state, not the namespaces: it flips between runs
# of one side as well), so one run of each proves nothing; each container
# run is compared with the base run just before it, and every base run
# with the first one, whose spread is the noise the containers' % sit in.
# Debian's lxc is not in the VM (a busybox initramfs): the namespaces are
# busybox unshare's, the cgroup namespace cgroupns's.  gpuprobe_edu is
# loaded by the host side; the container opens its debugfs controls.
# Exactly, on every side: R samples per probe (the DMA verify R/10); the
# driver's counters moved by exactly the workload; edu's interrupts in
# /proc/interrupts moved by R + 2 R/10, read inside the side and from the
# host around it; compare has a row for every probe, none unmatched.  No
# time is a pass criterion: the numbers are the results (tableN.txt,
# spread.txt; Documentation/results/containers-2026-12-02).
# usage: container_table.sh [R [REPS]]   (default 50 and 3); results in /tmp/ctr
. /gpuprobe/tests/ktap.sh
. /gpuprobe/tests/probe_table.sh
probe_table_rounds "${1:-50}"
REPS=${2:-3}
for m in gpuprobe_edu gpuprobe; do
	grep -q "^$m " /proc/modules && rmmod $m
done
if ! unshare -n -p -f -m --mount-proc true 2>/dev/null; then
	echo "1..0 # SKIP no network, pid or mount namespaces here"
	exit 4
fi
CG=/sys/fs/cgroup
if ! awk -v d=$CG '$2 == d && $3 == "cgroup2" { f = 1 } END { exit !f }' /proc/mounts; then
	if ! { mkdir -p $CG && mount -t cgroup2 none $CG; }; then
		echo "1..0 # SKIP no cgroup2"
		exit 4
	fi
fi
rmdir $CG/gpt_ctr $CG/gpt_uns 2>/dev/null
mkdir $CG/gpt_ctr $CG/gpt_uns || exit 1
O=/tmp/ctr
rm -rf $O
mkdir -p $O
insmod /gpuprobe/gpuprobe_edu.ko || exit 1
EDU=$(basename "$(dirname "$(grep -l 0x11e8 /sys/bus/pci/devices/*/device)")")
CTL=/sys/kernel/debug/gpuprobe_edu/$EDU
irq=$(awk '$1 == "irq" { print $2 }' "$CTL/stats")
echo "# edu at $EDU, irq $irq; R=$R"

# One CPU for everything timed: edu's MSI and every side's probe (as in
# nested/base_table.sh: a wake-up across CPUs costs several times more).
CPU=1
echo $((1 << CPU)) >"/proc/irq/$irq/smp_affinity"
check "edu's MSI (irq $irq) on CPU $CPU" [ "$(cat "/proc/irq/$irq/effective_affinity_list")" = $CPU ]

# One side, run where its namespaces are: what it sees of itself, the
# probe, and edu's interrupts in its own /proc/interrupts around it.
cat >$O/side.sh <<EOF
n=\$1
edu_irqs() { awk -v i="$irq:" '\$1 == i { for (k = 2; k <= NF && \$k ~ /^[0-9]+\$/; k++) s += \$k } END { print s + 0 }' /proc/interrupts; }
for ns in net pid mnt user cgroup uts ipc; do echo "\$ns \$(readlink /proc/self/ns/\$ns)"; done >$O/\$n.ns
echo "\$\$" >$O/\$n.pid
cat /proc/self/cgroup >$O/\$n.cgroup
cp $CTL/stats $O/\$n.stats0
i0=\$(edu_irqs)
taskset -c $CPU gpuprobe-trace probe --api edu -d $EDU --rounds $R -o $O/\$n.json >$O/\$n.txt 2>&1
echo \$? >$O/\$n.rc
i1=\$(edu_irqs)
cp $CTL/stats $O/\$n.stats1
echo \$((i1 - i0)) >$O/\$n.irqs
EOF
edu_irqs() {
	awk -v i="$irq:" '$1 == i { for (k = 2; k <= NF && $k ~ /^[0-9]+$/; k++) s += $k } END { print s + 0 }' /proc/interrupts
}
run_side() {	# name command...
	n=$1
	shift
	h0=$(edu_irqs)
	"$@"
	echo $(($(edu_irqs) - h0)) >$O/$n.host-irqs
}
# UTS and IPC namespaces where the kernel has them (the debug kernel's
# config need not): the expected lists below follow
CTR_NS="-n -p -f -m --mount-proc"
UTSIPC=
for o in u:uts i:ipc; do
	unshare -${o%:*} true 2>/dev/null && CTR_NS="$CTR_NS -${o%:*}" && UTSIPC="$UTSIPC ${o#*:}"
done
SIDES=
for i in $(seq "$REPS"); do
	run_side base$i sh $O/side.sh base$i
	# shellcheck disable=SC2086 # the option list
	run_side container$i sh -c "echo \$\$ >$CG/gpt_ctr/cgroup.procs && exec cgroupns unshare $CTR_NS sh $O/side.sh container$i"
	# shellcheck disable=SC2086
	run_side userns$i sh -c "echo \$\$ >$CG/gpt_uns/cgroup.procs && exec cgroupns unshare -U -r $CTR_NS sh $O/side.sh userns$i"
	SIDES="$SIDES base$i container$i userns$i"
done

# the namespaces each side ran in, against the host's
for ns in net pid mnt user cgroup uts ipc; do echo "$ns $(readlink /proc/self/ns/$ns)"; done >$O/host.ns
# the namespaces of a side that are not the host's, by name
own_ns() { awk 'NR == FNR { h[$1] = $2; next } h[$1] != $2 { printf "%s%s", s, $1; s = " " } END { print "" }' $O/host.ns "$1"; }
check "base: in the host's namespaces" [ "$(own_ns $O/base1.ns)" = "" ]
check "container: net, pid, mnt, cgroup$UTSIPC namespaces of its own, the host's user namespace" \
	[ "$(own_ns $O/container1.ns)" = "net pid mnt cgroup$UTSIPC" ]
check "userns: a user namespace of its own too" [ "$(own_ns $O/userns1.ns)" = "net pid mnt user cgroup$UTSIPC" ]
check "container, userns: pid 1 in their pid namespaces" [ "$(cat $O/container1.pid) $(cat $O/userns1.pid)" = "1 1" ]
check "container, userns: their cgroup is their cgroup namespace's root (0::/), gpt_ctr and gpt_uns on the host" \
	[ "$(cat $O/container1.cgroup) $(cat $O/userns1.cgroup)" = "0::/ 0::/" ]

for n in $SIDES; do
	check "$n: probe exits 0" [ "$(cat $O/$n.rc)" = 0 ]
	sed "s/^/# $n: /" $O/$n.txt
	check "$n: R samples per probe (dma R/10)" counts_match $O/$n.json
	check "$n: the driver's counters moved by exactly the workload" stats_match $O/$n.stats1 $O/$n.stats0
	check "$n: the probe's own counter check passed (no reason)" sh -c '! grep -q "\"reason\"" "$1"' _ $O/$n.json
	echo "# $n: edu's interrupts: $(cat $O/$n.irqs) in its /proc/interrupts, $(cat $O/$n.host-irqs) in the host's"
	check "$n: /proc/interrupts moved by R + 2 R/10 = $GIRQS, inside and seen from the host" \
		[ "$(cat $O/$n.irqs) $(cat $O/$n.host-irqs)" = "$GIRQS $GIRQS" ]
done

# compare BASE RUN OUT: compare's text into OUT, checked
compared() {
	gpuprobe-trace compare $O/$1.json $O/$2.json >$O/$3
	check "compare $1 $2 exits 0" [ $? -eq 0 ]
	sed "s/^/# $2: /" $O/$3
	check "compare $1 $2: a row for every probe, none unmatched" compare_rows_match $O/$3
}
for i in $(seq "$REPS"); do
	compared base$i container$i container$i-compare.txt
	compared base$i userns$i userns$i-compare.txt
	[ "$i" = 1 ] || compared base1 base$i base$i-compare.txt
	probe_table container $O/container$i-compare.txt userns $O/userns$i-compare.txt >$O/table$i.txt
	sed "s/^/# table, run $i: /" $O/table$i.txt
	check "table, run $i: a row for every probe" \
		[ "$(awk 'NR > 1 { print $1 }' $O/table$i.txt | tr '\n' ' ')" = "$PROBES " ]
done
# every run's % of base, side by side: the containers' against the base's own
(cd $O && for i in $(seq "$REPS"); do
	for f in container userns base; do
		[ -e $f$i-compare.txt ] && awk -v f=$f '/^  [a-z]/ && $1 != "probe" { print f, $1, $4 }' $f$i-compare.txt
	done
done) | awk '{ k = $1 " " $2; v[k] = v[k] (v[k] == "" ? "" : " / ") $3; if (!(k in seen)) { seen[k] = 1; order[n++] = k } }
	END { for (i = 0; i < n; i++) print order[i], v[order[i]] }' >$O/spread.txt
sed 's/^/# % of base, every run: /' $O/spread.txt
check "spread: container, userns and base rows for every probe" \
	[ "$(awk '{ print $1 }' $O/spread.txt | sort | uniq -c | awk '{ print $1 }' | sort -u | tr '\n' ' ')" = "4 " ]
rmmod gpuprobe_edu
rmdir $CG/gpt_ctr $CG/gpt_uns
finish
