#!/bin/sh
cat /sys/devices/system/clocksource/clocksource0/current_clocksource /sys/devices/system/clocksource/clocksource0/available_clocksource >/out/cs
dmesg | grep -i -e tsc -e clocksource -e kvm >/out/gdmesg
/gpuprobe/tests/tscx guest
