#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The H200 run of issue 29 ("the answer first"): what a user meets on the
# real passthrough guest with this build, through the device tool:
#   run: bash scripts/h200-verdict.sh      carry: [".gpu"]
# (.gpu/ as Documentation/results/h200-2026-12-01/README.md builds it).
#   1. a PyTorch loop recorded (tracefs source, CUPTI injection): report,
#      which opens with the verdict; report --json's verdict object
#   2. the CUDA probes untraced and traced: explain (its verdict first) and
#      compare (which says that one run was traced)
#   3. the refusals a user meets there: an output that is the input, a
#      trace of another run given to explain
# Results in $OUT/r (traces are left out of the tarball: 1-6 MB each).
set -x
OUT=${OUT:-/tmp/gpuprobe-h200}
R=$OUT/r
mkdir -p "$R"
cd "$(dirname "$0")/.." || exit 1
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
GPT=$PWD/.gpu/gpuprobe-trace
BDF=0000:00:06.0
START=$(date +%s)
t() {
	tar -C "$OUT" -czf "$OUT/h200-verdict.tgz" --exclude='*.trace' r 2>/dev/null
	echo "--- $(($(date +%s) - START))s: $*"
}

t env
{ uname -a; nproc; id; "$GPT" --version
  nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv
  ls -la .gpu .gpu/lib
} >"$R/env.txt" 2>&1

t torch
timeout 90 "$GPT" record --source tracefs -d $BDF -o "$R/torch.trace" -- \
	python3 scripts/examples/torch_step.py 30 blocking >"$R/record-torch.txt" 2>&1
echo "record exit $?" >>"$R/record-torch.txt"
"$GPT" report "$R/torch.trace" >"$R/report-torch.txt" 2>&1
"$GPT" report -v "$R/torch.trace" >"$R/report-torch-v.txt" 2>&1
"$GPT" report "$R/torch.trace" --json >"$R/report-torch.json" 2>&1

t probe-untraced
timeout 120 "$GPT" probe --api cuda --quick -o "$R/probe.json" >"$R/probe.txt" 2>&1
echo "probe exit $?" >>"$R/probe.txt"

t probe-traced
timeout 120 "$GPT" record --source tracefs -d $BDF -o "$R/probe.trace" -- \
	"$GPT" probe --api cuda --quick -o "$R/probe-traced.json" >"$R/record-probe.txt" 2>&1
echo "record exit $?" >>"$R/record-probe.txt"
"$GPT" report "$R/probe.trace" >"$R/report-probe.txt" 2>&1
"$GPT" explain "$R/probe-traced.json" "$R/probe.trace" >"$R/explain.txt" 2>&1
echo "explain exit $?" >>"$R/explain.txt"
"$GPT" compare "$R/probe.json" "$R/probe-traced.json" >"$R/compare.txt" 2>&1
echo "compare exit $?" >>"$R/compare.txt"

t refusals
{ "$GPT" export "$R/torch.trace" --csv "$R/torch.trace"; echo "export onto its input: exit $?"
  "$GPT" report "$R/torch.trace" >/dev/null; echo "the trace still reads: exit $?"
  "$GPT" explain "$R/probe-traced.json" "$R/torch.trace"; echo "explain of another run's trace: exit $?"
} >"$R/refusals.txt" 2>&1

t done
ls -la "$R"
