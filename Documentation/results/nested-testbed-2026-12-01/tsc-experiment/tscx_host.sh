#!/bin/sh
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
T=/sys/kernel/tracing; [ -d $T/instances ] || T=/sys/kernel/debug/tracing
mkdir $T/instances/tscx; echo mono >$T/instances/tscx/trace_clock; echo 1 >$T/instances/tscx/events/kvm/kvm_write_tsc_offset/enable
cat /sys/devices/system/clocksource/clocksource0/current_clocksource >/out/hcs
dmesg | grep -i -e tsc -e clocksource >/out/hdmesg
inner-vm >/out/inner-vm.log 2>&1 &
q=$!
i=0
while [ $i -lt 100 ] && ! ls -d /sys/kernel/debug/kvm/$q-*/vcpu0 >/dev/null 2>&1; do sleep 0.2; i=$((i+1)); done
d=$(ls -d /sys/kernel/debug/kvm/$q-* | head -n1)
for f in "$d"/vcpu0/*; do echo "$f: $(cat "$f" 2>&1)"; done >/out/vcpu0-before
/gpuprobe/tests/tscx host "$d/vcpu0/tsc-offset" >/out/tscx.txt 2>&1
for f in "$d"/vcpu0/*; do echo "$f: $(cat "$f" 2>&1)"; done >/out/vcpu0-after
cat $T/instances/tscx/trace >/out/tsc-writes
wait $q
