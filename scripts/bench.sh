#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: every benchmark, each printing ratios measured side by side in
# one run.  Results are recorded in Documentation/benchmarks.md.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
echo "== interrupt path: cost per edu interrupt in the test VM (TCG)"
# tsc=reliable: the clock source a host has.  Under TCG Linux marks the TSC
# unstable and reads the HPET, an emulated device, for every
# ktime_get_mono_fast_ns() (gpuprobe's two stamps an interrupt), while
# ftrace stamps with its "local" trace clock, sched_clock(), still the TSC
# (Documentation/benchmarks.md)
scripts/vmtest.sh -t 900 -a tsc=reliable -- /gpuprobe/tests/irq_bench
echo
echo "== interrupt path in instructions: the same benchmark under QEMU -icount"
scripts/bench-icount.sh
echo
echo "== tracefs source against trace-cmd record: interrupts + DMA in the test VM"
scripts/bench-tracefs-vm.sh
echo
echo "== DMA path: cost per DMA map+unmap pair in the test VM (TCG)"
scripts/vmtest.sh -t 900 -- /gpuprobe/tests/dma_bench
echo
echo "== another device's DMA: NVMe reads and a second edu's maps with gpuprobe watching edu"
# 6.12 too where make modules-next has built its modules (make bench-nontarget)
if [ -f build/knext/selftests/gpuprobe/floor/gpuprobe_floor.ko ]; then
	scripts/bench-nontarget.sh
else
	scripts/bench-nontarget.sh -k 6.1
fi
echo
echo "== burst: DMA map/unmap records/s held with 0 lost, beside NVMe readers and not, module and ftrace"
scripts/bench-burst.sh
if grep -q '^bench:' user/Makefile 2>/dev/null; then
	echo
	echo "== gpuprobe-trace report throughput"
	make -s -C user bench
fi
