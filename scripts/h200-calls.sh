#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the injected layer (CUPTI + libgpuprobe_cupti.so) adds to one CUDA
# call, call kind by call kind, on the H200 (issue 24), through the device tool:
#   run: bash scripts/h200-calls.sh        carry: [".gpu"]
# (.gpu/ as Documentation/results/h200-2026-12-02c/README.md builds it).
#
# scripts/examples/cuda_calls.cu (built there with nvcc) times N calls of
# each kind; each round runs it once under every configuration, in an order
# rotated round by round, each in its own process:
#   untraced    the program alone
#   traced      record, default
#   noinject    record --no-inject (kernel side only)
#   allapi      record --api-calls all (every API call recorded)
#   noruntime   GPUPROBE_CUDA_RUNTIME=0 (no runtime-API records)
#   noapi       GPUPROBE_CUDA_LEAVE_OUT=api (no API records)
#   nokernels   GPUPROBE_CUDA_LEAVE_OUT=kernels
#   nosyncs     GPUPROBE_CUDA_LEAVE_OUT=syncs (no SYNCHRONIZATION activity)
#   cbsyncs     GPUPROBE_CUDA_SYNCS=callbacks (waits timed from driver callbacks)
#   subscribed  GPUPROBE_CUDA_LEAVE_OUT=kernels,api,syncs,copies, no clock checks
# Samples "KIND-CFG ns_per_call"; the summary gives, per kind, each
# configuration's median and its per-round difference from untraced with
# benchstat.py's bootstrap interval, and the records the traces hold (to see
# whether CUPTI's per-callback-id API selection is in effect).  First, the
# CUPTI version and how cuptiGetStreamIdEx names streams from a driver
# callback (scripts/examples/cupti_stream_probe.cu).
set -u
OUT=${OUT:-/tmp/gpuprobe-calls}
R=$OUT/calls
ROUNDS=${ROUNDS:-5}
N=${N:-20000}
BUDGET_S=${BUDGET_S:-400}
CONFIGS=${CONFIGS:-untraced traced noinject allapi noruntime noapi nokernels nosyncs cbsyncs subscribed}
mkdir -p "$R"
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
export LD_LIBRARY_PATH=$TOP/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
GPT=$TOP/.gpu/gpuprobe-trace
BDF=${BDF:-0000:00:06.0}
SAMPLES=$R/samples.txt
START=$(date +%s)
B=/tmp/calls-bin
mkdir -p $B
t() { echo "--- $(($(date +%s) - START))s: $*"; }

t build
{ nvcc --version | tail -2
  nvcc -O2 -arch=sm_90 -o $B/cuda_calls scripts/examples/cuda_calls.cu -lcuda &&
  nvcc -O2 -o $B/cupti_stream_probe scripts/examples/cupti_stream_probe.cu \
	-I/usr/local/cuda/include -L"$TOP/.gpu/lib" -l:libcupti.so.13 -lcuda \
	-Xlinker -rpath -Xlinker "$TOP/.gpu/lib"
} >"$R/build.txt" 2>&1 || { cat "$R/build.txt"; exit 1; }

t probe
{ uname -r; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  ls -la "$TOP/.gpu/lib/" | grep -i cupti
  timeout 60 $B/cupti_stream_probe; echo "exit $?"
} >"$R/probe.txt" 2>&1
cat "$R/probe.txt"

: >"$SAMPLES"
one() {
	local cfg=$1 round=$2 log=$R/$1-$2.txt tr=/tmp/calls-$1-$2.trace
	local cmd=($B/cuda_calls "$N") rec=("$GPT" record -q --source tracefs -d "$BDF" -o "$tr")

	case $cfg in
	untraced) timeout 60 "${cmd[@]}" >"$log" 2>&1 ;;
	traced) timeout 60 "${rec[@]}" -- "${cmd[@]}" >"$log" 2>&1 ;;
	noinject) timeout 60 "$GPT" record -q --no-inject --source tracefs -d "$BDF" -o "$tr" -- \
		"${cmd[@]}" >"$log" 2>&1 ;;
	allapi) timeout 60 "$GPT" record -q --api-calls all --source tracefs -d "$BDF" -o "$tr" -- \
		"${cmd[@]}" >"$log" 2>&1 ;;
	noruntime) GPUPROBE_CUDA_RUNTIME=0 timeout 60 "${rec[@]}" -- "${cmd[@]}" >"$log" 2>&1 ;;
	noapi) GPUPROBE_CUDA_LEAVE_OUT=api timeout 60 "${rec[@]}" -- "${cmd[@]}" >"$log" 2>&1 ;;
	nokernels) GPUPROBE_CUDA_LEAVE_OUT=kernels timeout 60 "${rec[@]}" -- "${cmd[@]}" >"$log" 2>&1 ;;
	nosyncs) GPUPROBE_CUDA_LEAVE_OUT=syncs timeout 60 "${rec[@]}" -- "${cmd[@]}" >"$log" 2>&1 ;;
	cbsyncs) GPUPROBE_CUDA_SYNCS=callbacks timeout 60 "${rec[@]}" -- "${cmd[@]}" >"$log" 2>&1 ;;
	subscribed) GPUPROBE_CUDA_CLOCK_CHECK=0 GPUPROBE_CUDA_LEAVE_OUT=kernels,api,syncs,copies \
		timeout 60 "${rec[@]}" -- "${cmd[@]}" >"$log" 2>&1 ;;
	esac
	echo "exit $?" >>"$log"
	awk -v c="$cfg" '$1 == "cuda_calls" { print $2 "-" c, $4 }' "$log" >>"$SAMPLES"
	if [ "$cfg" != untraced ] && [ -e "$tr" ]; then
		[ "$round" -eq 1 ] && "$GPT" report "$tr" >"$R/report-$cfg.txt" 2>&1
		"$GPT" report "$tr" --json >"$R/$cfg-$round.json" 2>/dev/null
		rm -f "$tr"
	fi
}

round=0
while [ "$round" -lt "$ROUNDS" ]; do
	if [ $(($(date +%s) - START)) -gt "$BUDGET_S" ]; then
		echo "budget spent: $round of $ROUNDS rounds" | tee -a "$R/notes.txt"
		break
	fi
	round=$((round + 1))
	list=($CONFIGS)
	for ((i = 0; i < ${#list[@]}; i++)); do
		cfg=${list[$(((i + round) % ${#list[@]}))]}
		t "round $round $cfg"
		one "$cfg" "$round"
	done
done

t summary
{
	echo "cuda_calls $N calls of each kind a run, rounds done: $round; samples: ns per call"
	for kind in $(awk '{ sub(/-[a-z]+$/, "", $1); print $1 }' "$SAMPLES" | awk '!s[$0]++'); do
		echo "== $kind"
		for cfg in $CONFIGS; do
			printf '  %-10s median lo hi n: ' "$cfg"
			python3 scripts/benchstat.py "$SAMPLES" stat "$kind-$cfg"
		done
		for cfg in $CONFIGS; do
			[ "$cfg" = untraced ] && continue
			printf '  %-10s - untraced diff lo hi n: ' "$cfg"
			python3 scripts/benchstat.py "$SAMPLES" diff "$kind-$cfg" "$kind-untraced"
		done
	done
	echo "== records per traced run (report --json: trace.records, app events, API, kernels, copies, memsets, syncs)"
	python3 - "$R" <<'PY'
import glob, json, os, re, sys
d = sys.argv[1]
for p in sorted(glob.glob(os.path.join(d, "*-*.json"))):
    try:
        j = json.load(open(p))
    except ValueError:
        print(os.path.basename(p), "unreadable"); continue
    app = j.get("app", {})
    by = {k: v.get("records", 0) for k, v in app.get("sync_by_kind", {}).items()}
    tc = j.get("tracing_cost", {})
    print("%-18s records %d app %d api %d syncs %s cupti_overhead %d ns %d" % (
        os.path.basename(p), j.get("trace", {}).get("records", 0), app.get("events", 0),
        app.get("api_events", 0), by, tc.get("cupti_overhead_records", 0),
        tc.get("cupti_overhead_ns", 0)))
PY
} >"$R/summary.txt" 2>&1
cat "$R/summary.txt"
tar -C "$OUT" -czf "$OUT/h200-calls.tgz" calls
t finished
