#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One batched run on the real H200 passthrough guest (kernel 6.18, CUDA 13,
# signed modules only, no kprobes), through the device tool:
#   run: bash scripts/h200-run.sh      carry: [".gpu"]
# .gpu/ holds gpuprobe-trace built here and the shared libraries it needs
# (see Documentation/results/README.md).  Everything lands in $OUT, packed.
set -x
OUT=${OUT:-/tmp/gpuprobe-h200}
mkdir -p "$OUT/r"
R=$OUT/r
cd "$(dirname "$0")/.." || exit 1
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
GPT=$PWD/.gpu/gpuprobe-trace
BDF=0000:00:06.0
START=$(date +%s)
t() { echo "--- $(($(date +%s) - START))s: $*"; }

t env
{ uname -a; nproc; cat /proc/cmdline; id
  cat /sys/module/module/parameters/sig_enforce 2>&1
  cat /sys/kernel/security/lockdown 2>&1
  ls /lib/modules/"$(uname -r)"/build 2>&1 | head -3
  nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv
  grep -E 'CPU0|nvidia' /proc/interrupts | head -20
  ls /sys/bus/pci/devices/$BDF/msi_irqs
  ls /sys/kernel/tracing/events/ | tr '\n' ' '; echo
  ls /sys/kernel/tracing/events/dma /sys/kernel/tracing/events/iommu 2>&1
} >"$R/env.txt" 2>&1

t info
"$GPT" info -d $BDF >"$R/info.txt" 2>&1
"$GPT" info -d $BDF --json >"$R/info.json" 2>&1
# the module's refusal, as a user would meet it (the image has no insmod)
python3 - >"$R/insmod.txt" 2>&1 <<'PY'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(".gpu/gpuprobe.ko", os.O_RDONLY)
ret = libc.syscall(313, fd, b"target=0000:00:06.0", 0)   # finit_module
err = ctypes.get_errno()
print("finit_module(gpuprobe.ko) =", ret, os.strerror(err) if ret else "")
PY

t torch
timeout 150 "$GPT" record -d $BDF -o "$R/torch.trace" -- \
	python3 scripts/examples/torch_step.py 50 >"$R/record-torch.txt" 2>&1
echo "record exit $?" >>"$R/record-torch.txt"
"$GPT" report "$R/torch.trace" >"$R/report-torch.txt" 2>&1
"$GPT" report "$R/torch.trace" --json >"$R/report-torch.json" 2>&1
"$GPT" export "$R/torch.trace" --perfetto "$R/torch.perfetto.json" --csv "$R/torch.csv" \
	>"$R/export.txt" 2>&1 || "$GPT" export "$R/torch.trace" --perfetto "$R/torch.perfetto.json" >>"$R/export.txt" 2>&1

t torch-blocking
timeout 120 "$GPT" record -d $BDF -o "$R/torch-blocking.trace" -- \
	python3 scripts/examples/torch_step.py 50 blocking >"$R/record-torch-blocking.txt" 2>&1
echo "record exit $?" >>"$R/record-torch-blocking.txt"
"$GPT" report "$R/torch-blocking.trace" >"$R/report-torch-blocking.txt" 2>&1

t icd
ICD=/tmp/gpuprobe-icd; mkdir -p $ICD
NV_OCL=$(ldconfig -p | awk '/libnvidia-opencl\.so\.1 / { print $NF; exit }')
echo "${NV_OCL:-libnvidia-opencl.so.1}" >$ICD/nvidia.icd
export OCL_ICD_VENDORS=$ICD

t probe
timeout 240 "$GPT" probe --api all --json -o "$R/probe.json" >"$R/probe.txt" 2>&1
echo "probe exit $?" >>"$R/probe.txt"

t probe-traced
timeout 120 "$GPT" record --source tracefs -d $BDF -o "$R/probe.trace" -- \
	"$GPT" probe --api cuda --quick -o "$R/probe-traced.json" >"$R/record-probe.txt" 2>&1
echo "record exit $?" >>"$R/record-probe.txt"
"$GPT" report "$R/probe.trace" >"$R/report-probe.txt" 2>&1
"$GPT" report "$R/probe.trace" --json >"$R/report-probe.json" 2>&1
"$GPT" explain "$R/probe-traced.json" "$R/probe.trace" >"$R/explain.txt" 2>&1

t probe-full-traced
# all sizes (pins up to 256 MiB) for the first-pin vs repeat gap
timeout 200 "$GPT" record --source tracefs -d $BDF -o "$R/probe-full.trace" -- \
	"$GPT" probe --api cuda -o "$R/probe-full-traced.json" >"$R/record-probe-full.txt" 2>&1
echo "record exit $?" >>"$R/record-probe-full.txt"
"$GPT" report "$R/probe-full.trace" >"$R/report-probe-full.txt" 2>&1
"$GPT" explain "$R/probe-full-traced.json" "$R/probe-full.trace" >"$R/explain-full.txt" 2>&1

t probe-ocl-traced
timeout 100 "$GPT" record --source tracefs -d $BDF -o "$R/probe-ocl.trace" -- \
	"$GPT" probe --api opencl --quick -o "$R/probe-ocl-traced.json" >"$R/record-probe-ocl.txt" 2>&1
echo "record exit $?" >>"$R/record-probe-ocl.txt"
"$GPT" report "$R/probe-ocl.trace" >"$R/report-probe-ocl.txt" 2>&1
"$GPT" explain "$R/probe-ocl-traced.json" "$R/probe-ocl.trace" >"$R/explain-ocl.txt" 2>&1

t app-torch
# Issue 7: the application traced unmodified (CUPTI injection + OpenCL layer,
# both in .gpu/ beside gpuprobe-trace: `make -C inject gpu-carry`).
ls -la .gpu/libgpuprobe_*.so .gpu/lib/libcupti* >"$R/app-env.txt" 2>&1
ldd .gpu/libgpuprobe_cupti.so >>"$R/app-env.txt" 2>&1
timeout 150 "$GPT" record --source tracefs -d $BDF -o "$R/app-torch.trace" -- \
	python3 scripts/examples/torch_step.py 20 blocking >"$R/record-app-torch.txt" 2>&1
echo "record exit $?" >>"$R/record-app-torch.txt"
"$GPT" report "$R/app-torch.trace" >"$R/report-app-torch.txt" 2>&1
"$GPT" report "$R/app-torch.trace" --json >"$R/report-app-torch.json" 2>&1
"$GPT" export "$R/app-torch.trace" --perfetto "$R/app-torch.perfetto.json" >>"$R/export.txt" 2>&1

t app-opencl
# NVIDIA's OpenCL through OCL_ICD_VENDORS (set above); 16 MiB per buffer
timeout 90 "$GPT" record --source tracefs -d $BDF -o "$R/app-ocl.trace" -- \
	.gpu/ocl_app 4194304 >"$R/record-app-ocl.txt" 2>&1
echo "record exit $?" >>"$R/record-app-ocl.txt"
"$GPT" report "$R/app-ocl.trace" >"$R/report-app-ocl.txt" 2>&1
"$GPT" report "$R/app-ocl.trace" --json >"$R/report-app-ocl.json" 2>&1

t pack
tar -C "$OUT" -czf "$OUT/h200-results.tgz" r
cp "$R/info.txt" "$R/report-torch.txt" "$R/probe.txt" "$OUT/" 2>/dev/null
t done
ls -la "$R"
