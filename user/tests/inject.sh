#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Application tracing (inject/): the CUPTI injection library's exports and
# link, and an unmodified OpenCL program on PoCL traced by `record`: its 3
# kernels and 3 copies must appear in the report with the right names,
# bytes, directions and order, on the trace's clock.
. "$(dirname "$0")/common.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
INJ=$TOP/inject
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

make -s -C "$INJ" >"$T/build.txt" 2>&1
check "inject/ builds" [ $? -eq 0 ]

if [ -e "$INJ/libgpuprobe_cupti.so" ]; then
	check "libgpuprobe_cupti.so exports InitializeInjection" \
		sh -c "nm -D --defined-only '$INJ/libgpuprobe_cupti.so' | grep -q ' T InitializeInjection$'"
	check "libgpuprobe_cupti.so exports nothing else" \
		[ "$(nm -D --defined-only "$INJ/libgpuprobe_cupti.so" | grep -c ' T ')" -eq 1 ]
	check "libgpuprobe_cupti.so needs libcupti and resolves it" sh -c \
		"readelf -d '$INJ/libgpuprobe_cupti.so' | grep -q 'NEEDED.*libcupti.so' &&
		 ldd '$INJ/libgpuprobe_cupti.so' | grep 'libcupti' | grep -vq 'not found'"
else
	skip "CUPTI library checks" "$(grep -o 'skipping.*' "$T/build.txt" | head -1)"
fi

check "GPUPROBE_CUDA_TUNE: each key in range taken, each bad item refused by name (no CUDA)" \
	"$INJ/tests/cupti_tune"
if [ -x "$INJ/tests/ocl_layer_table" ]; then
	check "OpenCL layer: only the calls attribution reads are taken, every other one passes straight through" \
		"$INJ/tests/ocl_layer_table"
fi
if [ -x "$INJ/tests/cupti_sync_calls" ]; then
	check "CUDA waits timed from driver callbacks: the SYNC records attribution reads (fake CUPTI)" \
		"$INJ/tests/cupti_sync_calls"
fi
if [ -x "$INJ/tests/cupti_api_calls" ]; then
	check "CUDA API calls timed from callbacks: only the selected ones, their records (fake CUPTI)" \
		"$INJ/tests/cupti_api_calls"
fi
if [ -x "$INJ/tests/cupti_ops_calls" ]; then
	check "CUDA ops from the launching calls' callbacks: one record each, none for the runtime's own driver call (fake CUPTI)" \
		"$INJ/tests/cupti_ops_calls"
fi
if [ ! -x "$INJ/tests/ocl_app" ] || ! "$INJ/tests/ocl_app" 1024 >/dev/null 2>&1; then
	skip "OpenCL tracing" "no OpenCL platform (PoCL) or no CL headers"
	finish
fi
check "layer without GPUPROBE_APP_EVENTS: pass-through, app still right" sh -c \
	"OPENCL_LAYERS='$INJ/libgpuprobe_opencl.so' '$INJ/tests/ocl_app' 4096 | grep -q 'ocl_app ok'"

if [ "$(id -u)" -ne 0 ] || [ ! -d /sys/kernel/tracing/events/irq ]; then
	skip "record -- ocl_app" "need root and tracefs"
	finish
fi
BDF=$(basename "$(dirname "$(readlink -f /sys/block/vda/device 2>/dev/null)")" 2>/dev/null)
case $BDF in ????:??:??.?) ;; *) BDF=0000:00:02.0 ;; esac

"$GPT" record -q --source tracefs -d "$BDF" -o "$T/ocl.trace" -- "$INJ/tests/ocl_app" 262144 >"$T/out.txt" 2>&1
check "record -- ocl_app (unmodified, PoCL): exit 0" [ $? -eq 0 ]
"$GPT" report --json "$T/ocl.trace" >"$T/ocl.json"
check "report --json on it" [ $? -eq 0 ]
python3 - "$T/ocl.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
app = d["app"]
ops = app["ops"]
got = [(o["type"], o["name"], o["direction"], o["bytes"]) for o in ops]
want = [("memcpy", "write_buffer", "htod", 1 << 20), ("memcpy", "write_buffer", "htod", 1 << 20),
        ("kernel", "add", "", 0), ("kernel", "scale", "", 0), ("kernel", "square", "", 0),
        ("memcpy", "read_buffer", "dtoh", 1 << 20)]
t = d["trace"]
names = {(n["type"], n["name"]): n["count"] for n in app["names"]}
checks = {
    "names, bytes, directions in order": got == want,
    "every op OpenCL's": all(o["api"] == "opencl" for o in ops),
    # in-order queue: each command starts after the previous one ended
    "each op starts after the one before ended":
        all(ops[i]["start_ns"] >= ops[i - 1]["end_ns"] for i in range(1, len(ops))),
    # on the trace's clock: inside the recording, issued before they ran
    "issued, started, ended inside the recording":
        all(t["start_ns"] <= o["issue_ns"] <= o["start_ns"] <= o["end_ns"] <= t["stop_ns"] for o in ops),
    # the blocking read returns after its data arrived, and is the op it waited for
    "the blocking read returns after its data": ops[-1]["return_ns"] >= ops[-1]["end_ns"] > 0,
    "names counted": names == {("memcpy", "write_buffer"): 2, ("kernel", "add"): 1,
                               ("kernel", "scale"): 1, ("kernel", "square"): 1,
                               ("memcpy", "read_buffer"): 1},
    "6 API events, 1 sync": app["api_events"] == 6 and app["sync_events"] == 1,
}
bad = [k for k, v in checks.items() if not v]
print("    ops:", got if bad else "as expected", "| return wait", app["summary"]["return_wait_ns"], "ns")
for k in bad:
    print("    failed:", k)
if "issued, started, ended inside the recording" in bad or "each op starts after the one before ended" in bad:
    print("    trace", t["start_ns"], t["stop_ns"], "ops",
          [(o["issue_ns"], o["start_ns"], o["end_ns"], o.get("return_ns")) for o in ops])
if "6 API events, 1 sync" in bad:
    print("    api_events", app["api_events"], "sync_events", app["sync_events"])
sys.exit(1 if bad else 0)
PY
check "3 kernels + 2 writes + 1 read: names, bytes, directions, order, clock" [ $? -eq 0 ]

"$GPT" export "$T/ocl.trace" --perfetto "$T/p.json"
check "export --perfetto: an OpenCL queue track with the 6 commands" python3 -c "
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
queues = {(e['pid'], e['tid']) for e in ev if e['ph'] == 'M' and e['name'] == 'thread_name'
          and e['args']['name'].startswith('OpenCL queue ')}
q = [e for e in ev if e['ph'] == 'X' and (e['pid'], e['tid']) in queues and e['cat'] in ('kernel', 'memcpy')]
sys.exit(0 if len(q) == 6 else 1)" "$T/p.json"
check "export --perfetto (OpenCL): times in ns, slices nested, each flow started and ended once" \
	python3 "$(dirname "$0")/perfetto_check.py" -q shape json "$T/p.json"

"$GPT" record -q --no-inject --source tracefs -d "$BDF" -o "$T/noinj.trace" -- "$INJ/tests/ocl_app" 4096 >/dev/null 2>&1
check "--no-inject: no application events" sh -c \
	"'$GPT' report --json '$T/noinj.trace' | python3 -c 'import json,sys; sys.exit(\"app\" in json.load(sys.stdin))'"
finish
