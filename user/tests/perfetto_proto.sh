#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `export --perfetto-proto` of a synthetic trace (gentrace flows, synth.c),
# decoded by `protoc --decode` against perfetto_subset.proto (Perfetto's
# field numbers): the clock snapshot, per-CPU interrupt slices, DMA lanes,
# CUDA tracks with the demangled kernel name, and the flows interrupt ->
# wake-up -> the woken thread inside its wait, counted and ordered exactly.
. "$(dirname "$0")/common.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
if ! command -v protoc >/dev/null; then
	skip "Perfetto protobuf export" "no protoc (Debian protobuf-compiler; scripts/deps.sh)"
	finish
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$HERE/gentrace" flows "$T/flows.trace"
check "gentrace flows" [ $? -eq 0 ]
"$GPT" export "$T/flows.trace" --perfetto-proto "$T/flows.pftrace"
check "export --perfetto-proto exits 0" [ $? -eq 0 ]
protoc --proto_path="$HERE" --decode=gpuprobe_test.Trace perfetto_subset.proto \
	<"$T/flows.pftrace" >"$T/flows.txt" 2>"$T/protoc.err"
check "protoc --decode reads every byte as Trace" sh -c "[ -s '$T/flows.txt' ] && [ ! -s '$T/protoc.err' ]"
"$GPT" export "$T/flows.trace" --perfetto "$T/flows.json"
check "the JSON export stays" python3 -c "import json; json.load(open('$T/flows.json'))"
check "export --perfetto (flows): times in ns, slices nested, each flow started and ended once" \
	python3 "$(dirname "$0")/perfetto_check.py" -q shape json "$T/flows.json"
check "export --perfetto-proto: slices nested per track, each flow started on a slice and ended once" \
	python3 "$HERE/perfetto_check.py" -q shape proto "$T/flows.txt"

python3 - "$T/flows.txt" "$T/counts" <<'PY'
import re, sys

def parse(lines, i=0):
    """protoc's text format into nested dicts of lists."""
    node = {}
    while i < len(lines):
        line = lines[i].strip(); i += 1
        if not line:
            continue
        if line == "}":
            return node, i
        if line.endswith("{"):
            child, i = parse(lines, i)
            node.setdefault(line[:-1].strip(), []).append(child)
        else:
            k, v = line.split(":", 1)
            v = v.strip()
            node.setdefault(k, []).append(v[1:-1].encode().decode("unicode_escape") if v.startswith('"') else v)
    return node, i

trace, _ = parse(open(sys.argv[1]).read().splitlines())
packets = trace["packet"]
fails = passes = 0
def check(name, ok):
    global fails, passes
    print(("PASS " if ok else "FAIL ") + name)
    fails += not ok
    passes += bool(ok)

one = lambda d, k, default=None: d.get(k, [default])[0]
snap = one(packets[0], "clock_snapshot")
clocks = {one(c, "clock_id"): one(c, "timestamp") for c in snap["clocks"]} if snap else {}
check("first packet: ClockSnapshot MONOTONIC=start 1000000000, REALTIME beside it, primary MONOTONIC",
      clocks.get("3") == "1000000000" and clocks.get("1") == "1767225600000000000"
      and one(snap, "primary_trace_clock") == "BUILTIN_CLOCK_MONOTONIC")
check("first packet clears incremental state", one(packets[0], "sequence_flags") == "1")

tracks, names, events = {}, {}, []
for p in packets:
    for td in p.get("track_descriptor", []):
        tracks[one(td, "uuid")] = one(td, "name")
    for idata in p.get("interned_data", []):
        for n in idata.get("event_names", []):
            check(f"name iid {one(n, 'iid')} interned once", one(n, "iid") not in names)
            names[one(n, "iid")] = one(n, "name")
    for te in p.get("track_event", []):
        events.append((int(one(p, "timestamp")), one(p, "timestamp_clock_id"), te))
check("every event on BUILTIN_CLOCK_MONOTONIC (clock id 3)", all(c == "3" for _, c, _ in events))

def on(track_name, type_=None):
    return [(ts, te) for ts, _, te in events
            if tracks.get(one(te, "track_uuid")) == track_name and (type_ is None or one(te, "type") == type_)]
def name(te):
    return names.get(one(te, "name_iid"), one(te, "name"))

irqs = on("CPU 0", "TYPE_SLICE_BEGIN")
ends = on("CPU 0", "TYPE_SLICE_END")
check("4 interrupt slices on track 'CPU 0', each ended", len(irqs) == 4 and len(ends) == 4)
check("interrupts in order, 1 ms apart, 2 us long",
      [ts for ts, _ in irqs] == [1001000000 + k * 1000000 for k in range(4)]
      and sorted(ts for ts, _ in ends) == [1001002000 + k * 1000000 for k in range(4)])
wakes = on("CPU 0", "TYPE_INSTANT")
check("3 wake-up instants on 'CPU 0'", len(wakes) == 3 and all(name(te) == "wakeup" for _, te in wakes))

dma = on("DMA", "TYPE_SLICE_BEGIN"); dma2 = on("DMA (2)", "TYPE_SLICE_BEGIN")
check("overlapping DMA calls on two lanes: 2 on 'DMA', 1 on 'DMA (2)'",
      [ts for ts, _ in dma] == [1000100000, 1000200000] and [ts for ts, _ in dma2] == [1000120000])
check("DMA slices named by op", [name(te) for _, te in dma] == ["map_sg", "unmap_sg"])

kernel = on("CUDA stream 7", "TYPE_SLICE_BEGIN")
check("kernel on 'CUDA stream 7' demangled as Nsight shows it",
      len(kernel) == 1 and name(kernel[0][1]) == "void MatrixMulCUDA<32>(float*, float*, float*, int, int)")
ann = {one(a, "name"): one(a, "string_value") for a in kernel[0][1].get("debug_annotations", [])} if kernel else {}
check("the mangled name kept beside it", ann.get("mangled") == "_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii")
thread = on("CUDA thread 4242", "TYPE_SLICE_BEGIN")
check("API call and 2 waits on 'CUDA thread 4242'",
      [name(te) for _, te in thread] == ["cuLaunchKernel", "cuStreamSynchronize", "cuStreamSynchronize"])

flow = lambda te, k: [int(x) for x in te.get(k, [])]
irq_f = [flow(te, "flow_ids") for _, te in irqs]
wake_f = [(flow(te, "flow_ids"), flow(te, "terminating_flow_ids")) for _, te in wakes]
sync_f = [flow(te, "terminating_flow_ids") for _, te in thread[1:]]
woken = on("CUDA thread 4242", "TYPE_INSTANT")
woken_f = [(ts, flow(te, "terminating_flow_ids")) for ts, te in woken]
print(f"    flows: irq {irq_f}, wake-up {wake_f}, wait {sync_f}, woken thread {woken_f}")
ids = [f[0] for f in irq_f[:3] if f]
check("3 interrupts start a flow each, distinct ids; the 4th (nobody woken) none",
      len(ids) == 3 and len(set(ids)) == 3 and irq_f[3] == [])
check("wake-ups 1 and 2 continue their interrupt's flow, wake-up 3 ends it",
      wake_f[0] == ([ids[0]], []) and wake_f[1] == ([ids[1]], []) and wake_f[2] == ([], [ids[2]]))
check("flows 1 and 2 end on the woken thread at wake-ups 1 and 2 (inside its waits), not at the waits' start",
      sync_f == [[], []] and woken_f == [(wakes[0][0], [ids[0]]), (wakes[1][0], [ids[1]])]
      and all(b < ts < b + 130000 for (ts, _), (b, _) in zip(woken, thread[1:])))
open(sys.argv[2], "w").write(f"{passes} {fails}\n")
PY
read -r p f <"$T/counts" || { p=0; f=1; }

# the text report and JSON name the kernel the same way; JSON keeps CUPTI's name
DEMANGLED='void MatrixMulCUDA<32>(float*, float*, float*, int, int)'
check "report (text): the kernel demangled" sh -c "\"$GPT\" report '$T/flows.trace' | grep -qF '$DEMANGLED'"
"$GPT" report "$T/flows.trace" --json >"$T/report.json"
check "report --json: name demangled, CUPTI's mangled name beside it" python3 -c "
import json; d = json.load(open('$T/report.json'))['app']
ops = [(o['name'], o['mangled']) for o in d['ops']]
names = {n['name']: n['mangled'] for n in d['names']}
assert ops == [('$DEMANGLED', '_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii')], ops
assert names == {'$DEMANGLED': '_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii'}, names
"
PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
finish
