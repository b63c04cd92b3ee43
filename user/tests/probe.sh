#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `probe` and `compare`: OpenCL probes for real on whatever platform is here
# (PoCL in CI), the CUDA path against a stand-in libcuda, the embedded
# kernels' build, and compare's arithmetic on synthetic runs.
. "$(dirname "$0")/common.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
KERNELS=$HERE/../../kernels
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CC=${CC:-cc}

# Every API that ran: n > 0 and min <= p50 <= p99 for every probe, and the
# probes named in $2 (comma-separated) present.
sane_json() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
api = next(a for a in doc["apis"] if a["api"] == sys.argv[3])
assert api["status"] == "ok", api
names = {p["name"] for p in api["probes"]}
missing = set(sys.argv[2].split(",")) - names
assert not missing, missing
for p in api["probes"]:
    assert p["n"] > 0 and p["min"] <= p["p50"] <= p["p99"] <= p["max"], p
for w in api["sync_wake_samples"]:
    assert w["submit_ns"] <= w["launched_ns"] <= w["return_ns"], w
assert api["sync_wake_samples"], "no wake samples"
assert all(ph["start_ns"] <= ph["end_ns"] for ph in api["phases"])
PY
}

for cmd in probe compare; do
	out=$("$GPT" "$cmd" --help 2>&1)
	rc=$?
	check "$cmd --help exits 0 with EXAMPLES" \
		sh -c '[ "$1" -eq 0 ] && printf "%s" "$2" | grep -q EXAMPLES' _ "$rc" "$out"
done
"$GPT" probe --api metal >/dev/null 2>&1
check "probe --api metal: exit 2" [ $? -eq 2 ]

# OpenCL, for real.
if [ -n "$(ls /etc/OpenCL/vendors/*.icd 2>/dev/null)" ] || [ -n "$OCL_ICD_VENDORS" ]; then
	start=$(date +%s)
	timeout 120 "$GPT" probe --api opencl --quick -o "$T/ocl.json" >"$T/ocl.txt" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	echo "    opencl --quick: exit $rc in ${secs}s"
	check "opencl --quick runs, exit 0, under 60 s" sh -c '[ $1 -eq 0 ] && [ $2 -lt 60 ]' _ $rc $secs
	check "opencl JSON: every probe n>0, min<=p50<=p99; all probe kinds present" sane_json "$T/ocl.json" \
		launch_latency,sync_wake_latency,sync_wake.end_to_return,queue_delay.submit_to_start,h2d.pinned.4KiB,h2d.pageable.1MiB,d2h.pinned.64KiB,d2h.pageable.4KiB,pin.first.4KiB,pin.repeat.1MiB,unpin.64KiB,alloc.device.4KiB,d2d.1MiB opencl
	check "opencl: 200 blocking wake samples and a clock calibration" python3 -c "
import json, sys
a = json.load(open(sys.argv[1]))['apis'][0]
assert len(a['sync_wake_samples']) == 200 and all(w['blocking'] for w in a['sync_wake_samples'])
assert a['clock_calibration']['error_bound_ns'] >= 0" "$T/ocl.json"
else
	skip "opencl probes" "no OpenCL ICD in /etc/OpenCL/vendors"
fi

# CUDA with no driver: skipped with the reason, in the text and the JSON.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
	out=$("$GPT" probe --api cuda --quick -o "$T/nocuda.json" 2>&1)
	rc=$?
	check "cuda without a driver: 'skipped: no NVIDIA driver', exit 1" sh -c \
		'[ "$1" -eq 1 ] && printf "%s" "$2" | grep -q "cuda: skipped: no NVIDIA driver (libcuda.so.1 not found)"' _ "$rc" "$out"
	check "cuda skip recorded in the JSON" python3 -c "
import json, sys
a = json.load(open(sys.argv[1]))['apis']
assert a == [{'api': 'cuda', 'status': 'skipped', 'reason': 'no NVIDIA driver (libcuda.so.1 not found)'}], a" "$T/nocuda.json"
	check "probe JSON's header: the tool, this machine's name and kernel (uname), the clock, --quick, the run's times" python3 -c "
import json, os, sys
d = json.load(open(sys.argv[1]))
u = os.uname()
assert list(d)[:8] == ['tool', 'format_version', 'host', 'kernel', 'clock', 'pid', 'quick', 'traced'], list(d)
assert d['tool'] == 'gpuprobe-trace probe' and d['host'] == u.nodename and d['kernel'] == u.release, d
assert d['clock'] == 'CLOCK_MONOTONIC' and d['quick'] is True and d['pid'] > 0, d
assert 0 < d['start_ns'] <= d['end_ns'], d" "$T/nocuda.json"
	"$GPT" probe --quick -o "$T/all.json" >/dev/null 2>&1
	check "--api all with one API missing: exit 0, both recorded" sh -c \
		'[ $1 -eq 0 ] && python3 -c "import json,sys; assert [a[\"status\"] for a in json.load(open(sys.argv[1]))[\"apis\"]] == [\"skipped\", \"ok\"]" "$2"' \
		_ $? "$T/all.json"
else
	skip "cuda skip message" "libcuda.so.1 is installed here"
fi

# The CUDA path against a stand-in driver whose %globaltimer is
# CLOCK_MONOTONIC + 1.7e18 ns: the calibration must find -1.7e18 within its bound.
if "$CC" -std=gnu11 -Wall -Wextra -Werror -O2 -shared -fPIC -o "$T/libcuda.so.1" \
	"$HERE/probe_fakecuda.c" 2>"$T/cc.log"; then
	LD_LIBRARY_PATH=$T "$GPT" probe --api cuda --quick -o "$T/fake.json" >"$T/fake.txt" 2>&1
	rc=$?
	if grep -q "built without CUDA kernels" "$T/fake.txt"; then
		skip "cuda path (stand-in driver)" "tool built without nvcc"
	else
		check "cuda path with a stand-in driver: exit 0" [ $rc -eq 0 ]
		check "cuda JSON: every probe n>0, min<=p50<=p99; all probe kinds present" sane_json "$T/fake.json" \
			launch_latency,launch.call,sync_wake_latency,sync_wake.end_to_return,sync_wake_100us.end_to_return,spin_wait_100us.end_to_return,queue_delay.submit_to_start,h2d.pinned.4KiB,d2h.pageable.1MiB,pin.first.4KiB,pin.repeat.1MiB,unpin.64KiB,alloc.device.4KiB,alloc.host_pinned.1MiB,d2d.1MiB cuda
		check "calibration recovers the %globaltimer offset within its error bound" python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))['apis'][0]['clock_calibration']
err = c['offset_ns'] + 1700000000000000000
assert abs(err) <= c['error_bound_ns'] and c['error_bound_ns'] < 20000, (err, c)" "$T/fake.json"
	fi
else
	fail "stand-in libcuda builds" "$(cat "$T/cc.log")"
fi

# The embedded kernels: nvcc builds SASS for sm_80 and sm_90 plus PTX; without
# nvcc the build says so and embeds nothing.
cp -r "$KERNELS" "$T/kernels"
rm -f "$T/kernels/probe_kernels.fatbin" "$T/kernels/probe_kernels_fatbin.c"
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
	make -s -C "$T/kernels" >"$T/nvcc.log" 2>&1
	check "nvcc builds the probe kernels" [ $? -eq 0 ]
	make -s -C "$T/kernels" list >"$T/list.txt" 2>&1
	cat "$T/list.txt" | sed 's/^/    /'
	check "fatbin holds sm_80 and sm_90 SASS and PTX" sh -c \
		'grep -q "sm_80" "$1" && grep -q "sm_90" "$1" && grep -qi "ptx" "$1"' _ "$T/list.txt"
	rm -f "$T/kernels/probe_kernels.fatbin" "$T/kernels/probe_kernels_fatbin.c"
else
	skip "nvcc build of the kernels" "no nvcc"
fi
PATH=/usr/bin:/bin make -s -C "$T/kernels" NVCC= >"$T/nonvcc.log" 2>&1
check "without nvcc: a clear message and an empty embedded fatbin" sh -c \
	'grep -q "nvcc not found" "$1" && grep -q "gpuprobe_cuda_fatbin_size = 0;" "$2"' \
	_ "$T/nonvcc.log" "$T/kernels/probe_kernels_fatbin.c"

# compare on synthetic runs with known ratios.
cat >"$T/base.json" <<'J'
{"apis": [{"api": "cuda", "status": "ok", "probes": [
  {"name": "launch_latency", "bytes": 0, "n": 10, "min": 900, "p50": 1000, "p99": 2000},
  {"name": "h2d.pinned.1MiB", "bytes": 1048576, "n": 10, "min": 20000, "p50": 40000, "p99": 80000}]},
  {"api": "opencl", "status": "skipped", "reason": "none"}]}
J
cat >"$T/run.json" <<'J'
{"apis": [{"api": "cuda", "status": "ok", "probes": [
  {"name": "launch_latency", "bytes": 0, "n": 10, "min": 1000, "p50": 1250, "p99": 3000},
  {"name": "h2d.pinned.1MiB", "bytes": 1048576, "n": 10, "min": 10000, "p50": 20000, "p99": 80000},
  {"name": "only.in.run", "bytes": 0, "n": 1, "min": 1, "p50": 1, "p99": 1}]}]}
J
out=$("$GPT" compare "$T/base.json" "$T/run.json")
check "compare: 125.0% and 50.0% in the table" sh -c \
	'printf "%s\n" "$1" | grep -q "launch_latency .* 125.0%" && printf "%s\n" "$1" | grep -q "h2d.pinned.1MiB .* 50.0%"' _ "$out"
check "compare --json: exact percentages, one unmatched" sh -c \
	'"$1" compare "$2" "$3" --json | python3 -c "
import json, sys
d = json.load(sys.stdin)
p = {r[\"name\"]: r for r in d[\"probes\"]}
assert p[\"launch_latency\"][\"percent_p50\"] == 125 and p[\"launch_latency\"][\"percent_p99\"] == 150
assert p[\"h2d.pinned.1MiB\"][\"percent_p50\"] == 50 and d[\"unmatched\"] == 1 and len(p) == 2
"' _ "$GPT" "$T/base.json" "$T/run.json"
"$GPT" compare "$T/base.json" "$T/missing.json" >/dev/null 2>"$T/err.txt"
check "compare with a missing file: exit 1, names it" sh -c \
	'[ $1 -eq 1 ] && grep -q "missing.json" "$2"' _ $? "$T/err.txt"
printf '{"apis": [' >"$T/trunc.json"
"$GPT" compare "$T/base.json" "$T/trunc.json" >/dev/null 2>"$T/err.txt"
check "compare with truncated JSON: exit 1, names the offset" sh -c \
	'[ $1 -eq 1 ] && grep -q "offset" "$2"' _ $? "$T/err.txt"

finish
