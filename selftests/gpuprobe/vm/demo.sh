#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (scripts/demo.sh): an exact edu workload, recorded
# by gpuprobe and reported.
set -e
IRQS=${1:-500}
DMA=${2:-16384}
insmod /gpuprobe/gpuprobe_edu.ko
edu=$(basename "$(dirname "$(grep -l 0x11e8 /sys/bus/pci/devices/*/device)")")
ctl=/sys/kernel/debug/gpuprobe_edu/$edu
insmod /gpuprobe/gpuprobe.ko target="$edu"

echo "=== gpuprobe-trace info"
gpuprobe-trace info -d "$edu"

irq=$(awk '$1 == "irq" { print $2 }' "$ctl/stats")
before=$(awk -v i="$irq:" '$1 == i { print $2 + $3 }' /proc/interrupts)
echo
echo "=== workload: $IRQS edu interrupts, then a $DMA-byte DMA round trip"
gpuprobe-trace record -d "$edu" -o /tmp/demo.trace -- \
	sh -c "echo $IRQS > $ctl/irq && echo 'verify $DMA' > $ctl/dma" 2>&1 | cat
after=$(awk -v i="$irq:" '$1 == i { print $2 + $3 }' /proc/interrupts)
echo "kernel's own count (/proc/interrupts, irq $irq): $((after - before))"
echo "edu driver's count:"
sed 's/^/  /' "$ctl/stats"
echo
echo "=== gpuprobe-trace report"
gpuprobe-trace report /tmp/demo.trace
