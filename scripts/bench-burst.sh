#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The burst benchmark (issue 30): in the test VM, bursts of BENCH_PAIRS
# dma_map_single()/dma_unmap_single() pairs by the edu driver on CPU 0, at
# rates paced by a busy wait after each pair, with and without two O_DIRECT
# readers of the NVMe drive on CPU 0; per source (the module, and tracefs:
# ftrace's ring at the same rate) the highest records/s held with 0 lost
# (selftests/gpuprobe/vm/burst_bench.sh prints each run).
#
#   scripts/bench-burst.sh [BEFORE_DIR]
#
# BEFORE_DIR: a directory with another build's gpuprobe.ko and
# gpuprobe-trace (for 6.1), whose module source runs the same way after
# this tree's (the "before" of Documentation/benchmarks.md).  Environment:
# BENCH_PAIRS (20000), BENCH_GAPS, BENCH_SOURCES.  Log: build/bench-burst/.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUTDIR=${BENCH_DIR:-$TOP/build/bench-burst}
PAIRS=${BENCH_PAIRS:-20000}
GAPS=${BENCH_GAPS:-"40000 20000 10000 5000 2500 0"}
SOURCES=${BENCH_SOURCES:-"module tracefs"}
mkdir -p "$OUTDIR"

run() {	# NAME SOURCES [-o DIR]
	name=$1 sources=$2
	shift 2
	echo "== $name: $PAIRS pairs a burst, gaps $GAPS ns, sources $sources"
	scripts/vmtest.sh -t 900 -q -- sh /gpuprobe/tests/burst_bench.sh "$@" \
		-s "$sources" "$PAIRS" "$GAPS" 2 | tee "$OUTDIR/$name.log" |
		grep -E '^# [a-z]+, [0-9]+ readers(:|, gap)|^vmtest'
}

cd "$TOP"
run after "$SOURCES"
# the tracefs source is ftrace's ring either way: the before runs the module
if [ $# -gt 0 ]; then
	before=$(cd "$1" && pwd)
	VM_EXTRA_FILES=$before run before module -o "/gpuprobe/$(basename "$before")"
fi
