#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What tracing costs the workload (issue 24), on the H200 through the device
# tool (make bench-cuda there):
#   run: bash scripts/h200-cost.sh launch     carry: [".gpu"]
#   run: bash scripts/h200-cost.sh gpu        carry: [".gpu"]
# (.gpu/ as Documentation/results/h200-2026-12-01/README.md builds it; one
# call a loop keeps each call inside the 600 s limit).
#
# Loops (scripts/examples/torch_cost.py): launch-bound (small CNN, hundreds
# of API calls a step, a blocking event sync each step) and GPU-bound (bf16
# matrix products).  Each round runs every configuration once, in an order
# rotated round by round:
#   untraced   the loop alone
#   traced     record, default (the API calls attribution reads; the waits
#              timed from driver callbacks, not CUPTI's sync records: the
#              2026-12-02 runs had the latter)
#   noinject   record --no-inject (kernel side only)
#   allapi     record --api-calls all (every CUDA API call, as before)
# Samples are ms per step (the loop's own clock, after its warm-up);
# benchstat.py gives the median ratio to untraced and its bootstrap interval.
# Goals: traced/untraced <= 1.03 (launch), <= 1.01 (gpu), the whole interval.
# The per-record cost (the calibration report's tracing-cost line uses) is
# (allapi - traced) time over (allapi - traced) CUDA API records, per round.
#
# SYNCS=1: where the sync records come from, side by side (interleaved and
# rotated as above), results in $OUT/syncs-LOOP:
#   run: SYNCS=1 bash scripts/h200-cost.sh launch     carry: [".gpu"]
#   traced     GPUPROBE_CUDA_SYNCS=callbacks: waits timed from CUPTI's driver-API callbacks
#              (the default since 2026-12-02c)
#   actsyncs   GPUPROBE_CUDA_SYNCS=activity: CUPTI's SYNCHRONIZATION kind (as before)
#   apicb      traced, and GPUPROBE_CUDA_API_SOURCE=callbacks: the selected API
#              calls timed from callbacks too, no API activity records
# plus untraced; CONFIGS= adds noinject, bare (kernels and API records
# left out, callback syncs) and bareact (the same, activity syncs: the
# 2026-12-02 split's "bare").  The summary gives each against untraced,
# traced against actsyncs directly, and per round the sync records by kind,
# those outside their call, waits matched and with an interrupt, and whether
# the kernel names and counts equal actsyncs' (attribution unchanged).
# Results in $OUT/cost-LOOP; traces are not packed (MBs each).
#
# Any other configuration NAME in CONFIGS runs record's default with the
# environment CFG_NAME gives (CFG_pinned="GPUPROBE_CUDA_TUNE=pinned=1").
# REF=NAME (any mode): the summary gives each traced run's attribution
# (syncs by kind, waits matched, waits with an interrupt) and whether its
# kernel names and counts equal NAME's of the same round.
set -u
LOOP=${1:-launch}
OUT=${OUT:-/tmp/gpuprobe-cost}
R=$OUT/cost-$LOOP
ROUNDS=${ROUNDS:-5}
BUDGET_S=${BUDGET_S:-520}	# start no round after this: the call's limit is 600 s
case $LOOP in
launch) STEPS=${STEPS:-600} ;;
gpu) STEPS=${STEPS:-150} ;;
*) echo "usage: $0 launch|gpu" >&2; exit 2 ;;
esac
mkdir -p "$R"
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
export LD_LIBRARY_PATH=$TOP/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
GPT=${GPT:-$TOP/.gpu/gpuprobe-trace}
PY=${PY:-python3}
BDF=${BDF:-0000:00:06.0}
SAMPLES=$R/samples.txt
START=$(date +%s)
# split: where the traced run's cost goes (GPUPROBE_CUDA_LEAVE_OUT, a
# diagnostic of the tracing library): traced without kernel records,
# without API records, without both (CUPTI subscribed, copies/memsets/syncs
# only: the syncs now from callbacks, bareact for CUPTI's), and without
# CLOCK_MONOTONIC timestamps
if [ "${SPLIT:-0}" = 1 ]; then
	CONFIGS=${CONFIGS:-untraced traced nokernels noapi bare notimestamps}
	R=$OUT/split-$LOOP
	mkdir -p "$R"
	SAMPLES=$R/samples.txt
elif [ "${SYNCS:-0}" = 1 ]; then
	CONFIGS=${CONFIGS:-untraced traced actsyncs apicb}
	# the callbacks are not the default (2026-12-02b): ask for them here
	export GPUPROBE_CUDA_SYNCS=callbacks
	R=$OUT/syncs-$LOOP
	mkdir -p "$R"
	SAMPLES=$R/samples.txt
else
	CONFIGS=${CONFIGS:-untraced traced noinject allapi}
fi
: >"$SAMPLES"
t() {
	tar -C "$OUT" -czf "$OUT/h200-$(basename "$R").tgz" --exclude="*.trace" --exclude="*.json" "$(basename "$R")" 2>/dev/null
	echo "--- $(($(date +%s) - START))s: $*"
}

t env
{ uname -a; nproc; "$GPT" --version
  nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,clocks.mem --format=csv
  "$PY" -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0))'
} >"$R/env.txt" 2>&1

# one run of the loop under configuration $1, round $2: its ms/step into the samples
one() {
	local cfg=$1 round=$2 log=$R/$1-$2.txt tr=$R/$1-$2.trace ms
	local cmd=("$PY" scripts/examples/torch_cost.py "$LOOP" "$STEPS")

	case $cfg in
	untraced) timeout 120 "${cmd[@]}" >"$log" 2>&1 ;;
	traced) timeout 120 "$GPT" record -q --source tracefs -d "$BDF" -o "$tr" -- \
		"${cmd[@]}" >"$log" 2>&1 ;;
	noinject) timeout 120 "$GPT" record -q --no-inject --source tracefs -d "$BDF" -o "$tr" -- \
		"${cmd[@]}" >"$log" 2>&1 ;;
	actsyncs) GPUPROBE_CUDA_SYNCS=activity timeout 120 "$GPT" record -q --source tracefs \
		-d "$BDF" -o "$tr" -- "${cmd[@]}" >"$log" 2>&1 ;;
	apicb) GPUPROBE_CUDA_API_SOURCE=callbacks timeout 120 "$GPT" record -q --source tracefs \
		-d "$BDF" -o "$tr" -- "${cmd[@]}" >"$log" 2>&1 ;;
	bareact) GPUPROBE_CUDA_SYNCS=activity GPUPROBE_CUDA_LEAVE_OUT=kernels,api timeout 120 \
		"$GPT" record -q --source tracefs -d "$BDF" -o "$tr" -- "${cmd[@]}" >"$log" 2>&1 ;;
	nokernels|noapi|bare|nosyncs|subscribed|notimestamps)
		local leave check
		case $cfg in
		nokernels) leave=kernels ;;
		noapi) leave=api ;;
		bare) leave=kernels,api ;;
		nosyncs) leave=kernels,api,syncs ;;
		subscribed) leave=kernels,api,syncs,copies ;;
		notimestamps) leave=timestamps ;;
		esac
		check=1
		[ "$cfg" = subscribed ] && check=0	# CUPTI subscribed, nothing recorded
		GPUPROBE_CUDA_CLOCK_CHECK=$check GPUPROBE_CUDA_LEAVE_OUT=$leave timeout 120 "$GPT" record -q --source tracefs -d "$BDF" \
			-o "$tr" -- "${cmd[@]}" >"$log" 2>&1 ;;
	allapi) timeout 120 "$GPT" record -q --api-calls all --source tracefs -d "$BDF" -o "$tr" -- \
		"${cmd[@]}" >"$log" 2>&1 ;;
	*)	# CFG_NAME="VAR=value ...": record's default with that environment
		local var=CFG_$cfg
		# shellcheck disable=SC2086
		env ${!var:-} timeout 120 "$GPT" record -q --source tracefs -d "$BDF" -o "$tr" -- \
			"${cmd[@]}" >"$log" 2>&1 ;;
	esac
	echo "exit $?" >>"$log"
	ms=$(awk '$1 == "torch_cost" { for (i = 2; i < NF; i++) if ($i == "ms_per_step") print $(i + 1) }' "$log")
	if [ -z "$ms" ]; then
		echo "no result from $cfg round $round (see $log)"
		return
	fi
	echo "$LOOP-$cfg $ms" >>"$SAMPLES"
	if [ "$cfg" != untraced ] && [ -e "$tr" ]; then
		"$GPT" report "$tr" --json >"$R/$cfg-$round.json" 2>"$R/$cfg-$round.json.err"
		# the last round's reports are kept whole: names, counts, waits, tracing cost
		[ "$round" -eq "$ROUNDS" ] && "$GPT" report "$tr" >"$R/report-$cfg.txt" 2>&1
		[ "$round" -lt "$ROUNDS" ] && rm -f "$tr"	# disk: a few MB each
	fi
}

configs_of_round() {	# rotate so that no configuration always runs first or last
	local n=$1 i=0 list=() c

	for c in $CONFIGS; do list+=("$c"); done
	for ((i = 0; i < ${#list[@]}; i++)); do
		printf '%s ' "${list[$(((i + n) % ${#list[@]}))]}"
	done
}

# SYNCS=1: the attribution of each traced run, from its report --json
syncs_summary() {
	python3 - "$R" $CONFIGS <<'PY'
import json, os, re, sys
d, cfgs = sys.argv[1], [c for c in sys.argv[2:] if c not in ("untraced", "noinject")]
REF = os.environ.get("REF", "actsyncs")
def load(c, r):
    try:
        return json.load(open(os.path.join(d, "%s-%d.json" % (c, r))))
    except (OSError, ValueError):
        return None
def kernels(rep):
    return sorted((n.get("name", ""), n.get("count", 0)) for n in rep["app"].get("names", [])
                  if n.get("type") == "kernel")
rounds = sorted({int(m.group(1)) for f in os.listdir(d) if (m := re.search(r"-(\d+)\.json$", f))})
print("%-9s %5s %8s %7s %7s %7s %7s %8s %6s %9s %s" % ("config", "round", "api recs", "device",
      "stream", "event", "swait", "outside", "waits", "irq waits", "kernels as " + REF))
for r in rounds:
    ref = load(REF, r)
    for c in cfgs:
        rep = load(c, r)
        if not rep or "app" not in rep:
            print("%-9s %5d  (no report)" % (c, r))
            continue
        app, by = rep["app"], rep["app"].get("sync_by_kind", {})
        n = lambda k: by.get(k, {}).get("records", 0)
        same = "-" if c == REF or not ref or "app" not in ref else \
            ("yes" if kernels(rep) == kernels(ref) else "NO")
        print("%-9s %5d %8d %7d %7d %7d %7d %8d %6d %9d %s" % (c, r, app.get("api_events", 0),
              n("device"), n("stream"),
              n("event"), n("stream_wait"), app.get("syncs_outside_call", 0),
              app.get("summary", {}).get("waits", 0), app.get("summary", {}).get("irq_waits", 0), same))
PY
}

round=0
while [ "$round" -lt "$ROUNDS" ]; do
	if [ $(($(date +%s) - START)) -gt "$BUDGET_S" ]; then
		echo "budget spent: $round of $ROUNDS rounds" | tee -a "$R/notes.txt"
		break
	fi
	round=$((round + 1))
	for cfg in $(configs_of_round "$round"); do
		t "round $round $cfg"
		one "$cfg" "$round"
	done
done

t summary
{
	echo "loop $LOOP, $STEPS steps a run, rounds done: $round; samples: ms per step"
	for cfg in $CONFIGS; do
		printf '%-10s median lo hi n: ' "$cfg"
		python3 scripts/benchstat.py "$SAMPLES" stat "$LOOP-$cfg"
	done
	for cfg in $CONFIGS; do
		[ "$cfg" = untraced ] && continue
		printf '%-10s / untraced ratio lo hi n: ' "$cfg"
		python3 scripts/benchstat.py "$SAMPLES" ratio "$LOOP-$cfg" "$LOOP-untraced"
	done
	goal=1.03
	[ "$LOOP" = gpu ] && goal=1.01
	printf 'goal traced/untraced <= %s: ' "$goal"
	python3 scripts/benchstat.py "$SAMPLES" goal "$LOOP-traced/$LOOP-untraced" "<=" "$goal"
	if [ -n "${REF:-}" ]; then	# any mode: the attribution of each, against REF's
		syncs_summary
	elif [ "${SYNCS:-0}" = 1 ]; then
		printf '%-10s / actsyncs ratio lo hi n: ' traced
		python3 scripts/benchstat.py "$SAMPLES" ratio "$LOOP-traced" "$LOOP-actsyncs"
		syncs_summary
	elif [ "${SPLIT:-0}" != 1 ]; then
		python3 scripts/h200-cost-summary.py "$R" "$LOOP" "$STEPS"
	fi
} >"$R/summary.txt" 2>&1
cat "$R/summary.txt"
t finished
ls -la "$R" | head -60
