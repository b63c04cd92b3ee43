#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 11 ("truthful numbers") on the real H200 passthrough guest, one batch
# through the device tool (gpuprobe-trace and the tracing libraries prebuilt
# here in .gpu/, as for scripts/h200-run.sh):
#   run: bash scripts/h200-truth.sh
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

t "c: CUDA probe traced, explain"
timeout 110 "$GPT" record --source tracefs -d $BDF -o "$R/probe.trace" -- \
	"$GPT" probe --api cuda --quick -o "$R/probe-traced.json" >"$R/record-probe.txt" 2>&1
echo "record exit $?" >>"$R/record-probe.txt"
"$GPT" report "$R/probe.trace" >"$R/report-probe.txt" 2>&1
"$GPT" report "$R/probe.trace" --json >"$R/report-probe.json" 2>&1
"$GPT" explain "$R/probe-traced.json" "$R/probe.trace" >"$R/explain.txt" 2>&1
echo "explain exit $?" >>"$R/explain.txt"

t "a0: traced torch alone"
timeout 75 "$GPT" record --source tracefs -d $BDF -o "$R/alone.trace" -- \
	python3 scripts/examples/torch_step.py 30 blocking >"$R/record-alone.txt" 2>&1
echo "record exit $?" >>"$R/record-alone.txt"
"$GPT" report "$R/alone.trace" >"$R/report-alone.txt" 2>&1
"$GPT" report "$R/alone.trace" --json >"$R/report-alone.json" 2>&1

t "a1: traced torch alone, CUPTI's driver API records only (GPUPROBE_CUDA_RUNTIME=0)"
GPUPROBE_CUDA_RUNTIME=0 timeout 75 "$GPT" record --source tracefs -d $BDF -o "$R/driveronly.trace" -- \
	python3 scripts/examples/torch_step.py 30 blocking >"$R/record-driveronly.txt" 2>&1
echo "record exit $?" >>"$R/record-driveronly.txt"
"$GPT" report "$R/driveronly.trace" >"$R/report-driveronly.txt" 2>&1

t "a: traced torch beside an untraced torch on the same GPU"
python3 -u scripts/examples/torch_step.py 1000000 blocking >"$R/untraced.txt" 2>&1 &
UNTRACED=$!
sleep 8		# past its torch import and first steps
I0=$(irqs "$BDF")
timeout 75 "$GPT" record --source tracefs -d $BDF -o "$R/beside.trace" -- \
	python3 scripts/examples/torch_step.py 30 blocking >"$R/record-beside.txt" 2>&1
echo "record exit $?" >>"$R/record-beside.txt"
I1=$(irqs "$BDF")
echo "untraced process ran $(ps -o etimes= -p $UNTRACED 2>/dev/null) s, until killed here" >>"$R/untraced.txt"
kill "$UNTRACED"
sleep 2
kill -9 "$UNTRACED" 2>/dev/null	# SIGINT alone hung here once (device time lost)
wait "$UNTRACED" 2>/dev/null
echo "GPU interrupts in /proc/interrupts over the traced run (both processes): $((I1 - I0))" >>"$R/record-beside.txt"
"$GPT" report "$R/beside.trace" >"$R/report-beside.txt" 2>&1
"$GPT" report "$R/beside.trace" --json >"$R/report-beside.json" 2>&1

t "b: OpenCL probe traced, ocl_app traced"
timeout 80 "$GPT" record --source tracefs -d $BDF -o "$R/probe-ocl.trace" -- \
	"$GPT" probe --api opencl --quick -o "$R/probe-ocl-traced.json" >"$R/record-probe-ocl.txt" 2>&1
echo "record exit $?" >>"$R/record-probe-ocl.txt"
"$GPT" report "$R/probe-ocl.trace" >"$R/report-probe-ocl.txt" 2>&1
"$GPT" explain "$R/probe-ocl-traced.json" "$R/probe-ocl.trace" >"$R/explain-ocl.txt" 2>&1
echo "explain exit $?" >>"$R/explain-ocl.txt"
timeout 45 "$GPT" record --source tracefs -d $BDF -o "$R/app-ocl.trace" -- \
	.gpu/ocl_app 4194304 >"$R/record-app-ocl.txt" 2>&1
echo "record exit $?" >>"$R/record-app-ocl.txt"
"$GPT" report "$R/app-ocl.trace" >"$R/report-app-ocl.txt" 2>&1

t "CUDA clock checks off (GPUPROBE_CUDA_CLOCK_CHECK=0): what they cost"
GPUPROBE_CUDA_CLOCK_CHECK=0 timeout 75 "$GPT" record --source tracefs -d $BDF -o "$R/nocheck.trace" -- \
	python3 scripts/examples/torch_step.py 30 blocking >"$R/record-nocheck.txt" 2>&1
echo "record exit $?" >>"$R/record-nocheck.txt"
"$GPT" report "$R/nocheck.trace" >"$R/report-nocheck.txt" 2>&1

t pack
grep -E 'gpuprobe \((CUDA|OpenCL)\)|steps|record exit|interrupts' "$R"/record-*.txt >"$R/notes.txt" 2>&1
tar -C "$OUT" -czf "$OUT/h200-truth-traces.tgz" r/probe.trace r/beside.trace 2>/dev/null
cp "$R/notes.txt" "$R/explain.txt" "$R/report-beside.txt" "$OUT/" 2>/dev/null
ls -la "$R"
t done
