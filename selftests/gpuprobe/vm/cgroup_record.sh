#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `gpuprobe-trace record --cgroup` from the host (issue 25): the wake-ups
# in the trace are those of the cgroup's processes -- one started in it, a
# child it forks there, one moved into it mid-run -- and of nobody outside
# it, though an outsider sleeps on the same edu interrupts.  The pids are
# the ones this script started; the trace is read back with export --csv.
. /gpuprobe/tests/ktap.sh
for m in gpuprobe_edu gpuprobe; do
	grep -q "^$m " /proc/modules && rmmod $m
done
CG=/sys/fs/cgroup
if ! awk -v d=$CG '$2 == d && $3 == "cgroup2" { f = 1 } END { exit !f }' /proc/mounts; then
	if ! { mkdir -p $CG && mount -t cgroup2 none $CG; }; then
		echo "1..0 # SKIP no cgroup2"
		exit 4
	fi
fi
rmdir $CG/gpt_in 2>/dev/null
mkdir $CG/gpt_in || exit 1
insmod /gpuprobe/gpuprobe_edu.ko || exit 1
EDU=$(basename "$(dirname "$(grep -l 0x11e8 /sys/bus/pci/devices/*/device)")")
CTL=/sys/kernel/debug/gpuprobe_edu/$EDU
insmod /gpuprobe/gpuprobe.ko "target=$EDU" || exit 1
rm -f /tmp/cg_stop /tmp/cg_child

# a worker: edu interrupts, then a timed read (a sure wake-up); no fork
# (echo and read are the shell's own), so one pid per worker
# (a fifo no one writes, opened read-write: the read times out)
loop='while [ ! -e /tmp/cg_stop ]; do echo 3 > '$CTL'/irq; read -t 0.05 x <&3; done 3<>/tmp/cg_fifo'
rm -f /tmp/cg_fifo
mkfifo /tmp/cg_fifo || exit 1
sh -c "echo \$\$ > $CG/gpt_in/cgroup.procs; ( $loop ) & echo \$! > /tmp/cg_child; $loop" &
inside=$!
sh -c "$loop" &
outside=$!
sh -c "$loop" &
mover=$!
sleep 0.3
child=$(cat /tmp/cg_child)

gpuprobe-trace record -q --source module --no-inject -d "$EDU" --cgroup gpt_in \
	--duration 2 -o /tmp/cg.trace >/tmp/cg.rec 2>&1 &
rec=$!
sleep 1
echo "$mover" > $CG/gpt_in/cgroup.procs
wait $rec
rc=$?
touch /tmp/cg_stop
wait $inside $outside $mover 2>/dev/null
sed 's/^/# /' /tmp/cg.rec

gpuprobe-trace export --csv /tmp/cg.csv /tmp/cg.trace
# wake-ups per pid (column 16)
awk -F, '$1 == "wakeup" { n[$16]++ } END { for (p in n) print p, n[p] }' /tmp/cg.csv >/tmp/cg.wakes
count() { awk -v p="$1" '$1 == p { print $2; f = 1 } END { if (!f) print 0 }' /tmp/cg.wakes; }
others=$(awk -v a="$inside" -v b="$child" -v c="$mover" '$1 != a && $1 != b && $1 != c { s += $2 } END { print s + 0 }' /tmp/cg.wakes)
echo "# record exit $rc; wake-ups: in the cgroup $inside: $(count "$inside"), its child $child: $(count "$child"), moved in $mover: $(count "$mover"); outside $outside: $(count "$outside"); any other pid: $others"
check record_cgroup_exits_0 [ "$rc" = 0 ]
check record_cgroup_follows_its_process [ "$(count "$inside")" -ge 1 ]
check record_cgroup_follows_a_child_forked_in_it [ "$(count "$child")" -ge 1 ]
check record_cgroup_follows_a_process_moved_in [ "$(count "$mover")" -ge 1 ]
check record_cgroup_not_a_process_outside [ "$(count "$outside")" = 0 ]
check record_cgroup_nobody_else [ "$others" = 0 ]
rmmod gpuprobe
rmmod gpuprobe_edu
rmdir $CG/gpt_in
finish
