#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the nested tests: edu's driver raises interrupts and maps
# DMA as asked, one step per argument, in order:
#   irq:N        N interrupts, each handled before the next, the writer
#                asleep before each raise (the driver's irq_sleep): every
#                handler wakes it, however soon the interrupt comes
#   irqrun:N     the same through the driver's irq: the writer may still be
#                running when the interrupt comes, and is then woken by none
#   mapbench:N   N dma_map_single()/dma_unmap_single() pairs of 4 KiB
# and copies the driver's counters to /out/edu-stats.
[ -d /sys/module/gpuprobe_edu ] || insmod /gpuprobe/gpuprobe_edu.ko || exit 1
EDU=$(basename "$(dirname "$(grep -l 0x11e8 /sys/bus/pci/devices/*/device)")")
CTL=/sys/kernel/debug/gpuprobe_edu/$EDU
echo "edu at $EDU"
for step in "$@"; do
	n=${step#*:}
	case $step in
	irq:*) echo "$n" >"$CTL/irq_sleep" || exit 1 ;;
	irqrun:*) echo "$n" >"$CTL/irq" || exit 1 ;;
	mapbench:*) echo "$n 4096" >"$CTL/mapbench" || exit 1 ;;
	*) echo "edu_raise: unknown step $step" >&2; exit 2 ;;
	esac
done
cat "$CTL/stats" | tee /out/edu-stats
grep -i edu /proc/interrupts
sleep 1	# the host reads its /proc/interrupts while the guest lives
