#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a traced CUDA run's cost goes, one recording choice at a time
# (issue 24), without Python in the way: scripts/examples/cupti_launch_cost.cu
# (empty-kernel launches, a copy, a memset, an event sync a step; then
# cudaGetDevice + cudaStreamQuery pairs) under libgpuprobe_cupti.so, loaded
# by the driver as `record` loads it (CUDA_INJECTION64_PATH, the events to a
# scratch file), once per configuration, interleaved and rotated round by
# round.  On the device, carry [".gpu"] (the library and libcupti as
# Documentation/results/h200-2026-12-01/README.md builds them, and the
# benchmark binary as .gpu/cupti_launch_cost):
#   run: bash scripts/cupti-split.sh
# Samples (NAME VALUE, benchstat.py) in $OUT/split-micro/samples.txt:
# CFG-step (us a step), CFG-api (us a call pair).  The summary: each
# configuration against none (no library) and against default.
#
# Configurations (the environment each sets; CONFIGS= picks some):
#   none        no library
#   subscribed  GPUPROBE_CUDA_LEAVE_OUT=activities,devices: cuptiSubscribe only
#   devices     ...=activities: and the context callbacks (no clock checks)
#   synccb      the callback syncs, activity callbacks registered, no kind enabled
#   overhead    only CUPTI's OVERHEAD kind enabled
#   copies      only MEMCPY and MEMSET
#   bare        kernels and API records left out (the 2026-12-07 split's)
#   noapi       API records left out
#   default     record's default
#   nooverhead  GPUPROBE_CUDA_LEAVE_OUT=overhead (no OVERHEAD kind)
#   serial      GPUPROBE_CUDA_TUNE=kernel=serial (KERNEL, not CONCURRENT_KERNEL)
#   pinned      ...=pinned=1 (CUPTI's profiling buffers in pinned host memory)
#   devbuf      ...=devbuf=32 (32 MiB device buffers, CUPTI's default ~3 MB)
#   flush       ...=flush=500 (the worker's flush period, ms)
#   hostbuf     ...=hostbuf=32768 (32 MiB activity buffers, ours 4 MiB)
#   perthread0  ...=perthread=0 (one activity buffer, not one per thread)
#   hwtrace     ...=hwtrace=1 (Blackwell only, CUPTI says: expect a refusal)
#   noclock     GPUPROBE_CUDA_CLOCK_CHECK=0
#   notimestamps GPUPROBE_CUDA_LEAVE_OUT=timestamps (CUPTI's own clock)
#   allapi      GPUPROBE_CUDA_API=all
#   opscb       GPUPROBE_CUDA_OPS=callbacks (kernels, copies, memsets from the
#               launching calls' callbacks, no GPU activity kinds)
#   opscbnoapi  the same without API records
#   nokernels   GPUPROBE_CUDA_LEAVE_OUT=kernels (API records, copies, syncs kept)
set -u
OUT=${OUT:-/tmp/gpuprobe-split}
R=$OUT/split-micro
ROUNDS=${ROUNDS:-8}
BUDGET_S=${BUDGET_S:-200}
ARGS=${ARGS:-200 200 100000}
CONFIGS=${CONFIGS:-none subscribed devices synccb overhead copies bare noapi default nooverhead serial pinned devbuf flush hostbuf perthread0 hwtrace noclock notimestamps allapi}
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
BIN=${BIN:-$TOP/.gpu/cupti_launch_cost}
LIB=${LIB:-$TOP/.gpu/libgpuprobe_cupti.so}
mkdir -p "$R"
SAMPLES=$R/samples.txt
: >"$SAMPLES"
START=$(date +%s)

env_of() {
	case $1 in
	subscribed) echo GPUPROBE_CUDA_LEAVE_OUT=activities,devices ;;
	devices) echo GPUPROBE_CUDA_LEAVE_OUT=activities GPUPROBE_CUDA_CLOCK_CHECK=0 ;;
	synccb) echo GPUPROBE_CUDA_LEAVE_OUT=kernels,api,copies,overhead GPUPROBE_CUDA_CLOCK_CHECK=0 ;;
	overhead) echo GPUPROBE_CUDA_LEAVE_OUT=kernels,api,copies,syncs GPUPROBE_CUDA_CLOCK_CHECK=0 ;;
	copies) echo GPUPROBE_CUDA_LEAVE_OUT=kernels,api,syncs,overhead GPUPROBE_CUDA_CLOCK_CHECK=0 ;;
	bare) echo GPUPROBE_CUDA_LEAVE_OUT=kernels,api ;;
	noapi) echo GPUPROBE_CUDA_LEAVE_OUT=api ;;
	nooverhead) echo GPUPROBE_CUDA_LEAVE_OUT=overhead ;;
	serial) echo GPUPROBE_CUDA_TUNE=kernel=serial ;;
	pinned) echo GPUPROBE_CUDA_TUNE=pinned=1 ;;
	devbuf) echo GPUPROBE_CUDA_TUNE=devbuf=32 ;;
	flush) echo GPUPROBE_CUDA_TUNE=flush=500 ;;
	hostbuf) echo GPUPROBE_CUDA_TUNE=hostbuf=32768 ;;
	perthread0) echo GPUPROBE_CUDA_TUNE=perthread=0 ;;
	hwtrace) echo GPUPROBE_CUDA_TUNE=hwtrace=1 ;;
	noclock) echo GPUPROBE_CUDA_CLOCK_CHECK=0 ;;
	notimestamps) echo GPUPROBE_CUDA_LEAVE_OUT=timestamps ;;
	allapi) echo GPUPROBE_CUDA_API=all ;;
	opscb) echo GPUPROBE_CUDA_OPS=callbacks ;;
	opscbnoapi) echo GPUPROBE_CUDA_OPS=callbacks GPUPROBE_CUDA_LEAVE_OUT=api ;;
	nokernels) echo GPUPROBE_CUDA_LEAVE_OUT=kernels ;;
	*) echo "${EXTRA_ENV:-}" ;;	# default, none
	esac
}

one() {
	local cfg=$1 round=$2 log=$R/$1-$2.txt ev=/tmp/cupti-split-$$.events line
	local env

	env=$(env_of "$cfg")
	rm -f "$ev"
	# shellcheck disable=SC2086
	if [ "$cfg" = none ]; then
		timeout 60 "$BIN" $ARGS >"$log" 2>&1
	else
		timeout 60 env CUDA_INJECTION64_PATH="$LIB" GPUPROBE_APP_EVENTS="$ev" $env \
			"$BIN" $ARGS >"$log" 2>&1
	fi
	echo "exit $? events $(stat -c %s "$ev" 2>/dev/null || echo 0) env $env" >>"$log"
	rm -f "$ev"
	line=$(grep '^cupti_launch_cost ' "$log")
	[ -n "$line" ] || { echo "no result from $cfg round $round"; return; }
	# shellcheck disable=SC2086 # the line's words
	set -- $line
	echo "$cfg-step $3" >>"$SAMPLES"
	echo "$cfg-api $7" >>"$SAMPLES"
}

read -r -a list <<<"$CONFIGS"
round=0
while [ "$round" -lt "$ROUNDS" ] && [ $(($(date +%s) - START)) -le "$BUDGET_S" ]; do
	round=$((round + 1))
	for ((i = 0; i < ${#list[@]}; i++)); do
		one "${list[$(((i + round) % ${#list[@]}))]}" "$round"
	done
done
{
	echo "cupti_launch_cost $ARGS, rounds $round ($(($(date +%s) - START)) s)"
	printf '%-13s %-30s %-30s %-30s %s\n' config "step us [lo hi] n" "/none [lo hi]" "/default [lo hi]" "api us [lo hi]"
	for c in $CONFIGS; do
		printf '%-13s %-30s %-30s %-30s %s\n' "$c" \
			"$(python3 scripts/benchstat.py "$SAMPLES" stat "$c-step")" \
			"$(python3 scripts/benchstat.py "$SAMPLES" ratio "$c-step" none-step)" \
			"$(python3 scripts/benchstat.py "$SAMPLES" ratio "$c-step" default-step)" \
			"$(python3 scripts/benchstat.py "$SAMPLES" stat "$c-api")"
	done
} >"$R/summary.txt" 2>&1
cat "$R/summary.txt"
