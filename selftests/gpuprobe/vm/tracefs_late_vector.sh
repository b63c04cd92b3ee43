#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (selftests/gpuprobe/vm/list): the tracefs source
# and a vector that does not exist when recording starts, as an NVIDIA GPU's
# MSI-X vectors at first open.  The edu driver is loaded INSIDE the traced
# command and raises N interrupts at once: the report must hold exactly N,
# on a vector resolved while recording, matching the kernel's count.
N=50
. /gpuprobe/tests/ktap.sh

grep -q '^gpuprobe_edu ' /proc/modules && rmmod gpuprobe_edu
EDU=$(basename "$(dirname "$(grep -l 0x11e8 /sys/bus/pci/devices/*/device)")")
echo "# edu at $EDU, unbound"
nvec=$(ls "/sys/bus/pci/devices/$EDU/msi_irqs" 2>/dev/null | wc -l)
check "no MSI vector before recording ($nvec)" [ "$nvec" -eq 0 ]

# The irq's /proc/interrupts row, summed over the CPUs, read by the workload
# itself after the last interrupt: the vector did not exist before, so this
# is the delta over the run.
gpuprobe-trace record -q --source tracefs -d "$EDU" -o /tmp/late.trace -- sh -c "
	insmod /gpuprobe/gpuprobe_edu.ko &&
	echo $N > /sys/kernel/debug/gpuprobe_edu/$EDU/irq &&
	awk '/gpuprobe_edu/ { s = 0; for (i = 2; i <= NF && \$i ~ /^[0-9]+\$/; i++) s += \$i; print s }' /proc/interrupts >/tmp/late.proc"
check "record exits 0" [ $? -eq 0 ]
kernel=$(cat /tmp/late.proc 2>/dev/null)
gpuprobe-trace report /tmp/late.trace >/tmp/late.txt
sed 's/^/# /' /tmp/late.txt | grep -v '^# *\(\[\|$\)' | head -30
got=$(awk '/^  interrupts:/ { print $2; exit }' /tmp/late.txt)
echo "# /proc/interrupts delta ${kernel:-none}, report ${got:-none}"
check "/proc/interrupts counted $N" [ "${kernel:-0}" -eq $N ]
check "the report holds exactly $N interrupts" [ "${got:-0}" -eq $N ]
check "the report's kernel count matches the trace on the late vector" \
	grep -q "kernel counted $N (/proc/interrupts delta), trace holds $N in the same window: match" /tmp/late.txt
check "the vector is shown as resolved while recording" \
	grep -q "resolved while recording" /tmp/late.txt
rmmod gpuprobe_edu
finish
