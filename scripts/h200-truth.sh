#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 11 ("truthful numbers") on the real H200 passthrough guest, one batch
# through the device tool (gpuprobe-trace and the tracing libraries prebuilt
# here in .gpu/, as for scripts/h200-run.sh):
#   run: bash scripts/h200-truth.sh          (everything, about 8 minutes)
#        bash scripts/h200-truth.sh repeat   (alone/beside and clock checks
#                                             off/on, alternated twice)
# (a) a traced CUDA process beside an untraced one on the same GPU: DEVICE
#     records, which ops are charged; the traced one alone for comparison;
# (b) OpenCL traced: cl_khr_pci_bus_info on NVIDIA's driver, the clock
#     re-calibrations' cost and drift;
# (c) `explain` on a fresh CUDA probe run: causality checks, clock bounds;
#     CUPTI's clock checked (CLOCK records) in every CUDA run.
# Everything lands in $OUT/r, packed into $OUT/h200-truth.tgz.
#
# .gpu/, built on the dev machine from this tree:
#   make -C user && rm -rf .gpu && mkdir -p .gpu/lib && cp user/gpuprobe-trace .gpu/
#   cp -L $(ldd user/gpuprobe-trace | awk '/tracefs|traceevent|libnl|jansson/ {print $3}') \
#       /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 .gpu/lib/
#   make -C inject gpu-carry GPU_DIR=../.gpu
# The device tool sends the checkout its session started in, not a helper's
# worktree: from a worktree, copy the tree and .gpu/ into a folder of that
# checkout that .git/info/exclude ignores (say .g11: `git archive HEAD | tar
# -x -C CHECKOUT/.g11; cp -r .gpu CHECKOUT/.g11/`) and run
#   bash .g11/scripts/h200-truth.sh        carry: [".g11"]
# (the script works from the tree it lies in).  It needs about 8 minutes.
set -x
OUT=${OUT:-/tmp/gpuprobe-h200}
R=$OUT/r
mkdir -p "$R"
cd "$(dirname "$0")/.." || exit 1
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
GPT=$PWD/.gpu/gpuprobe-trace
BDF=0000:00:06.0
START=$(date +%s)
# each step re-packs what is there, so a run stopped at the tool's limit still returns it
t() {
	tar -C "$OUT" -czf "$OUT/h200-truth.tgz" --exclude='*.trace' r 2>/dev/null
	echo "--- $(($(date +%s) - START))s: $*"
}
irqs() { awk -v d="$1" '$NF ~ d || /nvidia/ { s = 0; for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i; t += s } END { print t + 0 }' /proc/interrupts; }

t env
{ uname -a; nproc; id; git log --oneline -1 2>&1
  nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv
  nvidia-smi -L
  grep -E 'CPU0|nvidia' /proc/interrupts | head -12
  ls -la .gpu .gpu/lib
} >"$R/env.txt" 2>&1

ICD=/tmp/gpuprobe-icd
mkdir -p $ICD
NV_OCL=$(ldconfig -p | awk '/libnvidia-opencl\.so\.1 / { print $NF; exit }')
echo "${NV_OCL:-libnvidia-opencl.so.1}" >$ICD/nvidia.icd
export OCL_ICD_VENDORS=$ICD

# traced NAME SECS CMD...: CMD recorded into $R/NAME.trace, the record's
# output in record-NAME.txt, the report (text and JSON) in report-NAME.*
traced() {
	local name=$1 secs=$2
	shift 2
	timeout "$secs" "$GPT" record --source tracefs -d $BDF -o "$R/$name.trace" -- "$@" \
		>"$R/record-$name.txt" 2>&1
	echo "record exit $?" >>"$R/record-$name.txt"
	"$GPT" report "$R/$name.trace" >"$R/report-$name.txt" 2>&1
	"$GPT" report "$R/$name.trace" --json >"$R/report-$name.json" 2>&1
}
torch30() { traced "$1" 75 python3 scripts/examples/torch_step.py 30 blocking; }

# beside NAME: the traced torch while an untraced one runs on the same GPU
beside() {
	python3 -u scripts/examples/torch_step.py 1000000 blocking >"$R/untraced-$1.txt" 2>&1 &
	local untraced=$! i0 i1
	sleep 8		# past its torch import and first steps
	i0=$(irqs "$BDF")
	torch30 "$1"
	i1=$(irqs "$BDF")
	echo "untraced process ran $(ps -o etimes= -p $untraced 2>/dev/null) s, until killed here" >>"$R/untraced-$1.txt"
	kill "$untraced"
	sleep 2
	kill -9 "$untraced" 2>/dev/null	# SIGINT alone hung here once (device time lost)
	wait "$untraced" 2>/dev/null
	echo "GPU interrupts in /proc/interrupts over the traced run (both processes): $((i1 - i0))" >>"$R/record-$1.txt"
}

if [ "${1:-all}" = repeat ]; then
	# the two differences of the first run, each pair alternated twice
	for n in 1 2; do
		t "alone $n"; torch30 "alone$n"
		t "beside $n"; beside "beside$n"
		t "clock checks off $n"; GPUPROBE_CUDA_CLOCK_CHECK=0 torch30 "nocheck$n"
		t "clock checks on $n"; torch30 "check$n"
	done
	t pack
	grep -E 'synchronisation records|waits|record exit|interrupts' "$R"/report-*.txt "$R"/record-*.txt >"$R/notes.txt" 2>&1
	tar -C "$OUT" -czf "$OUT/h200-truth-traces.tgz" r/beside1.trace r/alone1.trace 2>/dev/null
	ls -la "$R"
	t finished
	exit 0
fi

t "c: CUDA probe traced, explain"
traced probe 110 "$GPT" probe --api cuda --quick -o "$R/probe-traced.json"
"$GPT" explain "$R/probe-traced.json" "$R/probe.trace" >"$R/explain.txt" 2>&1
echo "explain exit $?" >>"$R/explain.txt"

t "a0: traced torch alone"
torch30 alone

t "a1: traced torch alone, CUPTI's driver API records only (GPUPROBE_CUDA_RUNTIME=0)"
GPUPROBE_CUDA_RUNTIME=0 torch30 driveronly

t "a: traced torch beside an untraced torch on the same GPU"
beside beside

t "b: OpenCL probe traced, ocl_app traced"
traced probe-ocl 80 "$GPT" probe --api opencl --quick -o "$R/probe-ocl-traced.json"
"$GPT" explain "$R/probe-ocl-traced.json" "$R/probe-ocl.trace" >"$R/explain-ocl.txt" 2>&1
echo "explain exit $?" >>"$R/explain-ocl.txt"
traced app-ocl 45 .gpu/ocl_app 4194304

t "CUDA clock checks off (GPUPROBE_CUDA_CLOCK_CHECK=0): what they cost"
GPUPROBE_CUDA_CLOCK_CHECK=0 torch30 nocheck

t pack
grep -E 'gpuprobe \((CUDA|OpenCL)\)|steps|record exit|interrupts' "$R"/record-*.txt >"$R/notes.txt" 2>&1
tar -C "$OUT" -czf "$OUT/h200-truth-traces.tgz" r/probe.trace r/beside.trace 2>/dev/null
cp "$R/notes.txt" "$R/explain.txt" "$R/report-beside.txt" "$OUT/" 2>/dev/null
ls -la "$R"
t finished
