#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One run of the probe suite on the real H200 passthrough guest (CUDA 13,
# root, no network, GPU 0000:00:06.0), in under 8 minutes:
#   bash kernels/h200-run.sh          (from the repository root; OUT=dir for results)
# Builds kernels/ and user/ (or, if user/ cannot build there, a probe-only
# binary), runs `probe --api all` for both APIs, then, time permitting, the
# CUDA probes again under `record --source tracefs` for the explanation step.
# Every step logs to $OUT and a failing step does not stop the next one.
set -x
OUT=${OUT:-/tmp/gpuprobe-h200}
mkdir -p "$OUT"
exec > >(tee "$OUT/run.log") 2>&1
cd "$(dirname "$0")/.." || exit 1
BDF=${BDF:-0000:00:06.0}
BUDGET=${BUDGET:-470}		# seconds, for everything
START=$(date +%s)
left() { echo $((BUDGET - ($(date +%s) - START))); }

# step NAME TIMEOUT CMD...: run, log to $OUT/NAME.log, report the exit status.
step() {
	local name=$1 limit=$2 rc
	shift 2
	[ "$limit" -gt "$(left)" ] && limit=$(left)
	if [ "$limit" -le 5 ]; then
		echo "=== $name: skipped, out of time"
		return 124
	fi
	echo "=== $name (limit ${limit}s): $*"
	timeout -k 5 "$limit" "$@" >"$OUT/$name.log" 2>&1
	rc=$?
	echo "=== $name: exit $rc after $(($(date +%s) - START))s total"
	tail -n 30 "$OUT/$name.log"
	return $rc
}

# --- the machine ---------------------------------------------------------
step env 30 sh -c "uname -a; nproc; free -g; cat /proc/cmdline;
	nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max --format=csv;
	lspci -vvv -s $BDF | grep -E 'LnkCap|LnkSta|MSI-X|IOMMU';
	ldconfig -p | grep -E 'libcuda|OpenCL|nvidia-opencl';
	ls -l /etc/OpenCL/vendors 2>&1; grep -c . /sys/kernel/iommu_groups/*/devices/* 2>/dev/null | head -3;
	command -v nvcc || ls /usr/local/cuda/bin/nvcc"

# --- OpenCL through NVIDIA's ICD ----------------------------------------
ICD_DIR=/tmp/gpuprobe-icd
mkdir -p "$ICD_DIR"
NV_OCL=$(ldconfig -p | awk '/libnvidia-opencl\.so\.1 / { print $NF; exit }')
echo "${NV_OCL:-libnvidia-opencl.so.1}" >"$ICD_DIR/nvidia.icd"
export OCL_ICD_VENDORS=$ICD_DIR
ldconfig -p | grep -q 'libOpenCL\.so\.1 ' ||
	echo "NOTE: no libOpenCL.so.1 (ICD loader): the OpenCL probes will be skipped"

# --- build ---------------------------------------------------------------
export PATH=$PATH:/usr/local/cuda/bin
step build-kernels 120 make -C kernels
step build-user 180 make -C user -j"$(nproc)"
GPT=$PWD/user/gpuprobe-trace
FULL=1
if [ ! -x "$GPT" ] || ! "$GPT" probe --help >/dev/null 2>&1; then
	# No libnl/libtracefs headers here: build probe and compare alone.
	# compare reads probe JSON with jansson; without libjansson-dev (header
	# or library), probe alone: the probe run needs only its own JSON writer.
	FULL=0
	GPT=$OUT/gpuprobe-probe
	JANSSON=$(pkg-config --cflags --libs jansson 2>/dev/null || echo -ljansson)
	COMPARE="user/cmd/compare.c user/lib/json_read.c"
	# shellcheck disable=SC2086
	if ! printf '#include <jansson.h>\nint main(void) { json_decref(json_object()); return 0; }\n' |
		cc -x c - $JANSSON -o "$OUT/jansson-check" >"$OUT/jansson-check.log" 2>&1; then
		echo "NOTE: no jansson development files (libjansson-dev): probe-only build without compare"
		JANSSON=-DGPUPROBE_NO_COMPARE
		COMPARE=
	fi
	# shellcheck disable=SC2086
	step build-probe-only 120 cc -std=gnu11 -O2 -D_GNU_SOURCE -Iuser/probe -Iuser/lib -Iuser/cmd -Iuser/output \
		-Iinclude/uapi -Iinject -o "$GPT" \
		kernels/probe_main.c user/cmd/probe.c user/probe/probe_stats.c user/output/probe_output.c \
		user/probe/probe_opencl.c user/probe/probe_cuda.c $COMPARE user/lib/array.c \
		user/lib/format.c user/lib/stats.c user/lib/file.c \
		user/lib/json.c user/lib/util.c kernels/probe_kernels_fatbin.c $JANSSON -lm -ldl
fi

# --- the probes ----------------------------------------------------------
step probe 220 "$GPT" probe --api all --json -o "$OUT/probe.json"
cp "$OUT/probe.log" "$OUT/probe.txt" 2>/dev/null

# --- the same CUDA probes under a tracefs recording (the kernel side) ----
if [ $FULL = 1 ] && [ "$(left)" -gt 120 ]; then
	step info 20 "$GPT" info -d "$BDF"
	step record 150 "$GPT" record --source tracefs -q -d "$BDF" -o "$OUT/probe.trace" -- \
		"$GPT" probe --api cuda -o "$OUT/probe-traced.json"
	step report 40 "$GPT" report "$OUT/probe.trace"
	"$GPT" report "$OUT/probe.trace" --json >"$OUT/probe-trace-report.json" 2>/dev/null
	step compare 20 "$GPT" compare "$OUT/probe.json" "$OUT/probe-traced.json"
fi

# --- summary -------------------------------------------------------------
set +x
echo "=== summary ($(($(date +%s) - START))s)"
python3 - "$OUT/probe.json" <<'PY' || cat "$OUT/probe.txt"
import json, sys
doc = json.load(open(sys.argv[1]))
def line(a, name, gbps=False):
    p = next((p for p in a["probes"] if p["name"] == name), None)
    if not p:
        return
    if gbps:
        print("  %-34s n=%-5d p50 %8.2f GB/s  best %8.2f GB/s" % (name, p["n"], p["gbps_p50"], p["gbps_best"]))
    else:
        print("  %-34s n=%-5d min %10.1f us  p50 %10.1f us  p99 %10.1f us" %
              (name, p["n"], p["min"] / 1e3, p["p50"] / 1e3, p["p99"] / 1e3))
for a in doc["apis"]:
    if a["status"] != "ok":
        print("%s: skipped: %s" % (a["api"], a.get("reason")))
        continue
    print("%s: %s (%s)" % (a["api"], a["device"], a["driver"]))
    if a.get("reason"):
        print("  note:", a["reason"])
    c = a.get("clock_calibration")
    if c:
        print("  clock: %s -> CLOCK_MONOTONIC error bound +/-%.0f ns, drift %.2f ppm" %
              (c["device_clock"], c["error_bound_ns"], c["drift_ppm"]))
    for n in ("launch_latency", "launch.call", "queue_delay.submit_to_start",
              "spin_wait.end_to_return", "sync_wake_latency", "sync_wake.end_to_return",
              "spin_wait_100us.end_to_return", "sync_wake_100us.end_to_return"):
        line(a, n)
    for n in ("h2d.pinned.256MiB", "d2h.pinned.256MiB", "h2d.pageable.256MiB",
              "d2h.pageable.256MiB", "h2d.pinned.4KiB", "d2d.256MiB", "d2d.64MiB"):
        line(a, n, gbps=True)
    for n in ("pin.first.256MiB", "pin.repeat.256MiB", "unpin.256MiB", "pin.first.1MiB",
              "pin.repeat.1MiB", "alloc.device.64MiB", "alloc.host_pinned.64MiB"):
        line(a, n)
PY
ls -l "$OUT"
exit 0
