#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Which namespace moves irq.round_trip?  One at a time, twice (results:
# namespaces_one_by_one.txt).  An exploration, not a test.
insmod /gpuprobe/gpuprobe_edu.ko
EDU=$(basename "$(dirname "$(grep -l 0x11e8 /sys/bus/pci/devices/*/device)")")
CTL=/sys/kernel/debug/gpuprobe_edu/$EDU
irq=$(awk '$1 == "irq" { print $2 }' "$CTL/stats")
echo 2 >/proc/irq/$irq/smp_affinity
CG=/sys/fs/cgroup
mkdir -p $CG; mount -t cgroup2 none $CG 2>/dev/null; mkdir -p $CG/x
cat > /tmp/p.sh <<EOF
taskset -c 1 gpuprobe-trace probe --api edu -d $EDU --rounds 100 -o /tmp/\$1.json 2>&1 | awk -v n="\$1" '/irq.round_trip|write.noop/ { print n, \$1, \$3, \$4 }'
EOF
for round in 1 2; do
sh /tmp/p.sh base
sh -c "echo \$\$ > $CG/x/cgroup.procs; exec sh /tmp/p.sh cgroup_only"
unshare -n sh /tmp/p.sh netns
unshare -m sh /tmp/p.sh mntns
unshare -p -f sh /tmp/p.sh pidns_f
unshare -f sh /tmp/p.sh fork_only
unshare -u -i sh /tmp/p.sh utsipc
unshare -p -f -m --mount-proc sh /tmp/p.sh pidns_proc
sh -c "sh /tmp/p.sh nested_sh"
done
cat /proc/cmdline
