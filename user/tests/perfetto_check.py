#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Both Perfetto exports checked against the traces' construction, not
against the tool: what each export must hold is worked out below from the
events synth_export.c and synth_merged.c write (keep them in step).

  perfetto_check.py proto DECODED   the export trace's --perfetto-proto,
                                    as `protoc --decode` printed it
  perfetto_check.py json FILE       the export trace's --perfetto JSON
  perfetto_check.py merged FILE N LATENCY DROP
                                    --perfetto of `gentrace merged n=N
                                    latency=LATENCY drop=DROP`
  perfetto_check.py crossing FILE N [host_path]
                                    --perfetto of `gentrace merged n=N inject
                                    vary tsc [host_path]`: one flow an
                                    interrupt, its hops (with host_path: the
                                    irqfd step and the VM entry too)
  perfetto_check.py merged-app FILE  --perfetto of `gentrace merged n=10 app`:
                                    the guest workload's ids and threads
  perfetto_check.py shape json FILE [SLACK_NS] | shape proto DECODED
                                    any trace's export: its times, slice
                                    nesting and flow ids alone

Prints a PASS or FAIL line per check (-q first: FAIL lines only); exits 1
when one failed.  Slices are rebuilt per track (protobuf: BEGIN/END in the
order Perfetto's trace processor takes them, by timestamp and, at equal
timestamps, in packet order: its TraceSorter sorts TrackEvents by (ts,
allocation order), src/trace_processor/sorter/trace_sorter.h; JSON:
complete events) and must nest; every flow must start once, end once, at
the timestamps of the slices it joins, its hops in that same order.

Ids: Perfetto merges our processes and threads with an ftrace trace's by
pid/tid, so every pid and tid must be a real one of the trace (the
workload's, below) or above the kernel's PID_MAX_LIMIT.
"""
import json
import re
import sys
from decimal import Decimal

T0 = 1000000000            # synth_export.c
PID = 4240                 # EXPORT_PID: the workload
TID = 4242                 # SYNTH_FLOW_TID, its thread that waits for irq A
TID2 = 4243                # EXPORT_TID2, its thread with a CUPTI-style sync (tid 0)
PID_MAX_LIMIT = 4194304    # include/linux/threads.h, 64-bit: 4 * 1024 * 1024
KERNEL_MANGLED = "_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii"
KERNEL = "void MatrixMulCUDA<32>(float*, float*, float*, int, int)"

# (cpu, vector, from, to) in ns after T0; irq numbers are 100 + vector
IRQS = [(0, 0, 12005, 14000), (0, 1, 100050, 101000), (0, 0, 200009, 202012),
        (0, 1, 252000, 253000), (1, 2, 300001, 300100)]
WAKES = [15001, 16002, 101500, 254000]             # CPU 0
DMA = [("map_sg", 30001, 35001), ("map_page", 31002, 32002)]   # the second inside the first
IOMMU = [("map", 30500, 30900)]
API = [("cuLaunchKernel", 5000, 6000), ("cuStreamSynchronize", 10000, 20000)]   # thread TID
# thread TID2: the call, and the sync record inside it that names no thread
API2 = [("cuCtxSynchronize", 250000, 260000), ("context_synchronize", 250100, 259900)]
STREAM7 = [(7000, 11000)]

# The merged trace: synth_merged.c's HOST_T0, spacing and handler length
HOST_T0, SPACING, HANDLER = 2000000000, 1000000, 2000

passes = fails = 0
quiet = False               # -q: FAIL lines only (inside another suite's check)


def check(name, ok, detail=""):
    global passes, fails
    if not ok or not quiet:
        print(("PASS " if ok else "FAIL ") + name + ("" if ok or not detail else ": " + str(detail)))
    passes += bool(ok)
    fails += not ok


def t(ns):
    return T0 + ns


# ---- protobuf, as protoc --decode prints it ----

def parse_text(lines, i=0):
    """protoc's text format into nested dicts of lists."""
    node = {}
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line:
            continue
        if line == "}":
            return node, i
        if line.endswith("{"):
            child, i = parse_text(lines, i)
            node.setdefault(line[:-1].strip(), []).append(child)
            continue
        k, v = line.split(":", 1)
        v = v.strip()
        node.setdefault(k, []).append(v[1:-1].encode().decode("unicode_escape")
                                      if v.startswith('"') else v)
    return node, i


def one(d, k, default=None):
    return d.get(k, [default])[0]


def proto_slices(events, tracks):
    """Per track: slices (name, begin, end, flows at begin) by the stack of
    BEGIN/END, instants (name, ts, flows), taken as trace processor takes
    them: by timestamp, in packet order at equal timestamps (a stable sort);
    fails a check when a track's END has no open BEGIN or a slice is left
    open."""
    stacks, slices, instants, bad = {}, {}, {}, []
    for ts, te, name in sorted(events, key=lambda e: e[0]):
        track = tracks.get(one(te, "track_uuid"), "?")
        kind = one(te, "type")
        flows = ([int(x) for x in te.get("flow_ids", [])],
                 [int(x) for x in te.get("terminating_flow_ids", [])])
        if kind == "TYPE_SLICE_BEGIN":
            stacks.setdefault(track, []).append((name, ts, flows))
        elif kind == "TYPE_SLICE_END":
            if not stacks.get(track):
                bad.append(f"{track}: END at {ts} with no open slice")
                continue
            n, begin, f = stacks[track].pop()
            slices.setdefault(track, []).append((n, begin, ts, f))
        elif kind == "TYPE_INSTANT":
            instants.setdefault(track, []).append((name, ts, flows))
    bad += [f"{k}: {len(v)} slices never ended" for k, v in stacks.items() if v]
    check("every track's slices nest in timestamp order: each END closes an open BEGIN",
          not bad, bad[:3])
    return slices, instants


def thread_label(pid, tid):
    return f"thread {pid}/{tid}"


def descriptors(packets):
    """uuid -> (name, parent uuid, process pid, (thread pid, tid))."""
    out = {}
    for p in packets:
        for td in p.get("track_descriptor", []):
            proc, thread = one(td, "process", {}), one(td, "thread", {})
            out[one(td, "uuid")] = (
                one(td, "name"), one(td, "parent_uuid"),
                int(one(proc, "pid")) if "pid" in proc else None,
                (int(one(thread, "pid", 0)), int(one(thread, "tid"))) if "tid" in thread else None)
    return out


def check_ids(pids, tids, real_pids, real_tids):
    """Every pid/tid either the trace's own or above PID_MAX_LIMIT (and an int32)."""
    bad = sorted({("pid", p) for p in pids if p not in real_pids and not PID_MAX_LIMIT < p < 2 ** 31} |
                 {("tid", t) for t in tids if t not in real_tids and not PID_MAX_LIMIT < t < 2 ** 31})
    check(f"every pid and tid is the workload's ({sorted(real_pids)}, {sorted(real_tids)}) or "
          f"above PID_MAX_LIMIT {PID_MAX_LIMIT} (cannot clash with init, kthreadd ... of an ftrace trace)",
          not bad, bad[:6])


def check_flows_proto(slices, instants, order, want):
    """Flows: where each id starts (flow_ids of a slice begin), passes (an
    instant's flow_ids) and ends (terminating_flow_ids), exactly as want;
    and their hops in the order trace processor takes them."""
    roles = {}
    for track, ss in slices.items():
        for n, b, _, (fl, term) in ss:
            for f in fl:
                roles.setdefault(f, []).append(("start", track, n, b))
            for f in term:
                roles.setdefault(f, []).append(("end", track, n, b))
    for track, ins in instants.items():
        for n, ts, (fl, term) in ins:
            for f in fl:
                roles.setdefault(f, []).append(("step", track, n, ts))
            for f in term:
                roles.setdefault(f, []).append(("end", track, n, ts))
    got = sorted(sorted(r) for r in roles.values())
    check(f"{len(want)} flows: each starts at one interrupt, ends once, at the events' timestamps",
          got == sorted(sorted(w) for w in want), got)
    bad = [f for f, ids in order.items()
           if [k for k in ids] != ["start"] + ["step"] * (len(ids) - 2) + ["end"]]
    check("each flow's hops in trace processor's order (timestamp, then packet): start, steps, end",
          not bad, {f: order[f] for f in bad[:3]})
    return roles


def check_proto(path):
    trace, _ = parse_text(open(path).read().splitlines())
    packets = trace.get("packet", [])
    check("protoc decoded packets", len(packets) > 0)
    snap = one(packets[0], "clock_snapshot") if packets else None
    clocks = {one(c, "clock_id"): int(one(c, "timestamp")) for c in snap["clocks"]} if snap else {}
    check("first packet: a ClockSnapshot with MONOTONIC at the trace's start",
          clocks.get("3") == T0 and one(snap, "primary_trace_clock") == "BUILTIN_CLOCK_MONOTONIC",
          clocks)
    desc = descriptors(packets)
    # a thread track is known by its thread, any other by its name
    tracks = {u: thread_label(*d[3]) if d[3] else d[0] for u, d in desc.items()}
    names, events, hops = {}, [], []
    for p in packets:
        for idata in p.get("interned_data", []):
            for n in idata.get("event_names", []):
                names[one(n, "iid")] = one(n, "name")
        for te in p.get("track_event", []):
            if one(p, "timestamp_clock_id") != "3":
                check("event on the MONOTONIC clock", False, p)
            events.append((int(one(p, "timestamp")), te,
                           names.get(one(te, "name_iid"), one(te, "name"))))
    for ts, te, _ in sorted(events, key=lambda e: e[0]):
        hops += [(int(f), "step" if one(te, "type") == "TYPE_INSTANT" else "start")
                 for f in te.get("flow_ids", [])]
        hops += [(int(f), "end") for f in te.get("terminating_flow_ids", [])]
    order = {}
    for f, k in hops:
        order.setdefault(f, []).append(k)
    slices, instants = proto_slices(events, tracks)
    span = lambda track: sorted((n, b, e) for n, b, e, _ in slices.get(track, []))

    pids = [d[2] for d in desc.values() if d[2] is not None]
    check_ids(pids + [d[3][0] for d in desc.values() if d[3]],
              [d[3][1] for d in desc.values() if d[3]], {PID}, {TID, TID2})
    proc = [u for u, d in desc.items() if d[2] == PID]
    check(f"one process track for the workload, pid {PID}", len(proc) == 1, proc)
    threads = sorted(d[3] for d in desc.values() if d[3])
    check(f"thread tracks are the workload's threads ({PID}, {TID}) and ({PID}, {TID2})",
          threads == [(PID, TID), (PID, TID2)], threads)

    for cpu in (0, 1):
        want = sorted((f"irq {100 + v}", t(a), t(b)) for c, v, a, b in IRQS if c == cpu)
        check(f"CPU {cpu}: the interrupt slices at the trace's times", span(f"CPU {cpu}") == want,
              span(f"CPU {cpu}"))
    got = sorted(ts for n, ts, _ in instants.get("CPU 0", []) if n == "wakeup")
    check("CPU 0: the wake-up instants", got == [t(w) for w in WAKES], got)
    gpu = [u for u, d in desc.items() if d[2] is not None and (d[0] or "").startswith("0000:01:00.0")]
    vec = sorted((d[0], d[1]) for d in desc.values() if (d[0] or "").startswith("vector"))
    check("a track per vector, named as in the JSON export, under the target's process",
          len(gpu) == 1 and vec == [(f"vector {v}", gpu[0]) for v in (0, 1, 2)], (gpu, vec))
    for v in (0, 1, 2):
        want = sorted((f"irq {100 + x}", t(a), t(b)) for _, x, a, b in IRQS if x == v)
        check(f"vector {v}: its interrupts' slices", span(f"vector {v}") == want, span(f"vector {v}"))
    check("DMA: the outer call on the first lane, the one inside it on the second",
          span("DMA") == [(DMA[0][0], t(DMA[0][1]), t(DMA[0][2]))] and
          span("DMA (2)") == [(DMA[1][0], t(DMA[1][1]), t(DMA[1][2]))],
          (span("DMA"), span("DMA (2)")))
    check("IOMMU: the map", span("IOMMU") == [(n, t(a), t(b)) for n, a, b in IOMMU], span("IOMMU"))
    stream = [d for d in desc.values() if d[0] == "CUDA stream 7"]
    check(f"CUDA stream 7: the kernel, demangled, on a track of the workload's process (pid {PID})",
          span("CUDA stream 7") == [(KERNEL, t(a), t(b)) for a, b in STREAM7] and
          len(stream) == 1 and stream[0][1] in proc, (span("CUDA stream 7"), stream))
    for tid, calls in ((TID, API), (TID2, API2)):
        got = span(thread_label(PID, tid))
        check(f"thread ({PID}, {tid}): its API calls and waits, on the thread the app events name",
              got == sorted((n, t(a), t(b)) for n, a, b in calls), got)

    check_proto_flows(slices, instants, order)
    check_proto_categories(packets, events, tracks)


def want_category(track, name):
    """What each event is, from the trace's construction: interrupts, DMA
    calls and bounces, IOMMU maps, wake-ups; the application's events and
    anything else: other."""
    if name.startswith("irq "):
        return "irq"
    if track.startswith("DMA") or name == "swiotlb bounce":
        return "dma"
    if track.startswith("IOMMU"):
        return "iommu"
    return "sched" if name == "wakeup" else "other"


def check_proto_categories(packets, events, tracks):
    cats = {}
    for p in packets:
        for idata in p.get("interned_data", []):
            for c in idata.get("event_categories", []):
                cats[one(c, "iid")] = one(c, "name")
    bad, kinds = [], set()
    for ts, te, name in events:
        if one(te, "type") == "TYPE_SLICE_END":
            continue
        track = tracks.get(one(te, "track_uuid"), "?")
        got = [cats.get(i) for i in te.get("category_iids", [])]
        want = want_category(track or "", name or "")
        kinds.add(want)
        if got != [want]:
            bad.append((track, name, ts, got, want))
    check("every slice's and instant's interned category names what it is (irq, dma, iommu, sched, other)",
          not bad and kinds == {"irq", "dma", "iommu", "sched", "other"}, (bad[:4], sorted(kinds)))


def check_proto_flows(slices, instants, order):
    # A: handler ends 14000, its wake-up 15001 (10 ms window) falls in TID's
    # wait [10000, 20000): A -> the wake-up on CPU 0 -> TID at 15001; 16002
    # after A too, but A has its flow.  B -> 101500, in no wait: ended at the
    # wake-up.  E: handler ends 253000, TID2 woken at 254000 inside the sync
    # [250100, 259900) that its call cuCtxSynchronize names the thread of.
    want = [
        [("start", "CPU 0", "irq 100", t(12005)), ("step", "CPU 0", "wakeup", t(15001)),
         ("end", thread_label(PID, TID), "wakeup", t(15001))],
        [("start", "CPU 0", "irq 101", t(100050)), ("end", "CPU 0", "wakeup", t(101500))],
        [("start", "CPU 0", "irq 101", t(252000)), ("step", "CPU 0", "wakeup", t(254000)),
         ("end", thread_label(PID, TID2), "wakeup", t(254000))],
    ]
    roles = check_flows_proto(slices, instants, order, want)
    irq_end = {t(a): t(b) for _, _, a, b in IRQS}
    waits = {thread_label(PID, TID): [(t(10000), t(20000))], thread_label(PID, TID2): [(t(250100), t(259900))]}
    bad = []
    for f, r in roles.items():
        start = [x for x in r if x[0] == "start"]
        end = [x for x in r if x[0] == "end"]
        if not start or not end or end[0][1] not in waits and end[0][1] != "CPU 0":
            bad.append((f, r))
        elif end[0][3] <= irq_end.get(start[0][3], 0):
            bad.append((f, "ends before its interrupt ended", r))
        elif end[0][1] in waits and not any(a <= end[0][3] <= b for a, b in waits[end[0][1]]):
            bad.append((f, "ends outside the wait", r))
    check("every flow ends after its interrupt's handler ended, a woken waiter's inside its wait",
          not bad, bad[:3])
    check("no interrupt starts more than one flow", all(
        sum(1 for r in roles.values() for x in r if x[0] == "start" and x[3] == t(a)) <= 1
        for _, _, a, _ in IRQS))


# ---- trace_event JSON ----

def load_json(path):
    raw = open(path).read()
    times = re.findall(r'"(?:ts|dur)":([0-9.eE+-]+)', raw)
    bad = [x for x in times if not re.fullmatch(r"[0-9]+\.[0-9]{3}", x)]
    check("every ts and dur: microseconds with exactly three decimals (ns kept)",
          times and not bad, bad[:5])
    ev = json.loads(raw, parse_float=Decimal)["traceEvents"]
    procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
               if e["ph"] == "M" and e["name"] == "thread_name"}
    track = lambda e: (procs.get(e["pid"], "?"), threads.get((e["pid"], e.get("tid")), "?"))
    return ev, track


def ns(us):
    v = us * 1000
    return int(v) if v == int(v) else None


def json_tracks(ev, track):
    """Complete events per track, (name, begin ns, end ns); nesting checked."""
    out, bad = {}, []
    for e in ev:
        if e["ph"] == "X":
            out.setdefault(track(e), []).append((e["name"], ns(e["ts"]), ns(e["ts"] + e["dur"])))
    for k, ss in out.items():
        stack = []
        for n, b, e in sorted(ss, key=lambda s: (s[1], -s[2])):
            while stack and stack[-1] <= b:
                stack.pop()
            if stack and e > stack[-1]:
                bad.append(f"{k}: {n} [{b}, {e}) overlaps its parent's end {stack[-1]}")
            stack.append(e)
    check("complete events nest on every track (a child inside its parent)", not bad, bad[:3])
    return {k: sorted(v) for k, v in out.items()}


def check_json(path):
    ev, track = load_json(path)
    x = json_tracks(ev, track)
    cpus = "CPUs"
    gpu = next((p for p, _ in x if p.startswith("0000:01:00.0")), "?")
    for cpu in (0, 1):
        want = sorted((f"irq {100 + v}", t(a), t(b)) for c, v, a, b in IRQS if c == cpu)
        check(f"CPU {cpu}: interrupt slices at the trace's times", x.get((cpus, f"CPU {cpu}")) == want,
              x.get((cpus, f"CPU {cpu}")))
    for vec in (0, 1, 2):
        want = sorted((f"irq {100 + v}", t(a), t(b)) for _, v, a, b in IRQS if v == vec)
        check(f"vector {vec}: the same slices on the target's track",
              x.get((gpu, f"vector {vec}")) == want, x.get((gpu, f"vector {vec}")))
    check("DMA: both calls, the second inside the first",
          x.get((gpu, "DMA")) == sorted((n, t(a), t(b)) for n, a, b in DMA), x.get((gpu, "DMA")))
    check("IOMMU: the map", x.get((gpu, "IOMMU")) == [(n, t(a), t(b)) for n, a, b in IOMMU],
          x.get((gpu, "IOMMU")))
    json_ids(ev, {PID}, {TID, TID2})
    by_id = {}
    for e in ev:
        if e["ph"] == "X":
            by_id.setdefault((e["pid"], e["tid"]), []).append((e["name"], ns(e["ts"]), ns(e["ts"] + e["dur"])))
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
             if e["ph"] == "M" and e["name"] == "thread_name"}
    stream = [k for k, n in names.items() if n == "CUDA stream 7"]
    check(f"CUDA: the kernel (CUPTI's name) on a stream track of the workload's process, pid {PID}",
          len(stream) == 1 and stream[0][0] == PID and
          sorted(by_id.get(stream[0], [])) == [(KERNEL_MANGLED, t(a), t(b)) for a, b in STREAM7],
          (stream, [by_id.get(k) for k in stream]))
    for tid, calls in ((TID, API), (TID2, API2)):
        got = sorted(by_id.get((PID, tid), []))
        check(f"thread ({PID}, {tid}): its API calls and waits, on the thread the app events name",
              got == sorted((n, t(a), t(b)) for n, a, b in calls), got)
    wakes = sorted(ns(e["ts"]) for e in ev if e["ph"] == "i" and e["name"] == "wakeup"
                   and track(e) == (cpus, "CPU 0"))
    check("wake-up instants on CPU 0", wakes == [t(w) for w in WAKES], wakes)


def json_ids(ev, real_pids, real_tids):
    check_ids([e["pid"] for e in ev if "pid" in e], [e["tid"] for e in ev if "tid" in e],
              real_pids, real_tids)


def check_merged(path, n, latency, drop):
    ev, track = load_json(path)
    x = json_tracks(ev, track)
    json_ids(ev, set(), set())      # the KVM records' VMM pid/tid are drawn on CPUs
    host_cpus = next((p for p, _ in x if p.startswith("host ") and p.endswith(": CPUs")), "?")
    guest_cpus = next((p for p, _ in x if p.startswith("guest ") and p.endswith(": CPUs")), "?")
    host = [HOST_T0 + i * SPACING for i in range(n)]
    guest = [h + latency for i, h in enumerate(host) if i != drop]
    check("host CPU 0: every host interrupt", x.get((host_cpus, "CPU 0")) ==
          [("irq 100", h, h + HANDLER) for h in host], x.get((host_cpus, "CPU 0")))
    check("guest CPU 0: the guest's interrupts on the host clock (LATENCY after theirs)",
          x.get((guest_cpus, "CPU 0")) == [("irq 100", g, g + HANDLER) for g in guest],
          x.get((guest_cpus, "CPU 0")))
    # Perfetto lists processes by sort index: each machine's CPUs, targets,
    # then its unattributed events, and the guest's after all of the host's
    names = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    order = [names.get(e["pid"], "?") for e in sorted(
        (e for e in ev if e["ph"] == "M" and e["name"] == "process_sort_index"),
        key=lambda e: e["args"]["sort_index"])]
    want = [m + " " + w for m in ("host", "guest") for w in ("CPUs", "target", "unattributed")]
    got = [m.split()[0] + " " + ("CPUs" if m.endswith(": CPUs") else
                                 "unattributed" if m.endswith(": unattributed") else "target")
           for m in order]
    check("processes in order: the host's CPUs, target, unattributed, then the guest's the same",
          got == want, order)
    flows = json_flows(ev)
    check("each flow id starts once and ends once", all(ok for ok, _ in flows.values()),
          [k for k, (ok, _) in flows.items() if not ok][:5])
    # without injections: host handler -> guest handler -> the woken guest task (pid = tid = WAKE_PID)
    wake = (GUEST_BASE + WAKE_PID, GUEST_BASE + WAKE_PID)
    got = sorted([(ph, ns(e["ts"]), track(e) if ph != "f" else (e["pid"], e["tid"]), e.get("bp"))
                  for ph, e in hops] for _, hops in flows.values())
    want = [[("s", h, (host_cpus, "CPU 0"), None), ("t", h + latency, (guest_cpus, "CPU 0"), None),
             ("f", h + latency + WAKE, wake, "e")] for i, h in enumerate(host) if i != drop]
    check(f"{len(want)} flows, host interrupt's entry -> its guest interrupt's entry -> the woken "
          "guest thread (bound to the enclosing slice)", got == want, got[:2])
    check("no host interrupt starts two flows", len({f[0][1] for f in got}) == len(got))


def json_flows(ev):
    """Flow id -> (one start and one end?, its hops in trace order: start, steps, end)."""
    hops = {}
    for e in ev:
        if e["ph"] in ("s", "t", "f"):
            hops.setdefault(e["id"], []).append((e["ph"], e))
    out = {}
    for k, h in hops.items():
        order = sorted(h, key=lambda x: "stf".index(x[0]))
        ok = [x[0] for x in h].count("s") == 1 and [x[0] for x in h].count("f") == 1
        out[k] = (ok, order)
    return out


# synth_merged.c: synth_merged_stages with vary (keep in step), its VMM and woken task
WAKE, INJECT_NS = 3000, 4000
VMM_PID, VCPU_TID, WAKE_PID = 4242, 4243, 100


def vary_stages(i):
    to_inject = 3000 + (i * 37 % 100) * 41
    return to_inject, to_inject + 1000 + (i * 53 % 100) * 29, 2000 + (i * 71 % 100) * 23


def vary_host_path(i):
    """synth_merged_stages with vary: to_irqfd (in the handler), to_entry (after the injection)."""
    return 200 + (i * 31 % 100) * 13, 100 + (i * 13 % 100) * 9


def check_crossing(path, n, host_path=False):
    """--perfetto of `gentrace merged n=N inject vary tsc`: each interrupt one flow, host handler ->
    KVM injection on the vCPU thread (its real ids) -> guest handler -> the woken guest thread,
    each hop where a slice of its own track begins, every hop of one flow the same interrupt's."""
    ev, track = load_json(path)
    x = json_tracks(ev, track)
    json_ids(ev, {VMM_PID}, {VCPU_TID})
    host_cpus = next((p for p, _ in x if p.startswith("host ") and p.endswith(": CPUs")), "?")
    guest_cpus = next((p for p, _ in x if p.startswith("guest ") and p.endswith(": CPUs")), "?")
    begins = {}
    for e in ev:
        if e["ph"] == "X":
            begins.setdefault((e["pid"], e["tid"]), set()).add(ns(e["ts"]))
    flows = json_flows(ev)
    check("each flow id starts once and ends once", all(ok for ok, _ in flows.values()),
          [k for k, (ok, _) in flows.items() if not ok][:5])
    unbound = [(k, ph, ns(e["ts"])) for k, (_, hops) in flows.items() for ph, e in hops
               if ns(e["ts"]) not in begins.get((e["pid"], e["tid"]), ())]
    check("every hop where a slice of its track begins (the slice it binds to)", not unbound, unbound[:3])
    wake = (GUEST_BASE + WAKE_PID, GUEST_BASE + WAKE_PID)
    got = sorted([(ph, ns(e["ts"]), track(e) if ph in "st" and e["pid"] != VMM_PID else (e["pid"], e["tid"]))
                  for ph, e in hops] for _, hops in flows.values())
    want = []
    for i in range(n):
        h = HOST_T0 + i * SPACING
        inj, lat, wk = vary_stages(i)
        irqfd, entry = vary_host_path(i)
        # in the export's order: start, the steps as they happen, end
        want.append([("s", h, (host_cpus, "CPU 0"))] +
                    ([("t", h + irqfd, (host_cpus, "CPU 0"))] if host_path else []) +
                    [("t", h + inj, (VMM_PID, VCPU_TID))] +
                    ([("t", h + inj + entry, (VMM_PID, VCPU_TID))] if host_path else []) +
                    [("t", h + lat, (guest_cpus, "CPU 0")), ("f", h + lat + wk, wake)])
    steps = "irqfd in the host handler, injection and VM entry" if host_path else "injection"
    check(f"{n} flows, each one interrupt's: host handler -> {steps} on vCPU thread "
          f"({VMM_PID}, {VCPU_TID}) -> guest handler -> woken guest thread", got == want,
          [g for g in got if g not in want][:2])
    if host_path:
        names = {(e["name"], ns(e["ts"])) for e in ev if e["ph"] == "X"}
        h = HOST_T0
        inj, lat, _ = vary_stages(0)
        irqfd, entry = vary_host_path(0)
        check("interrupt 0's slices: irqfd (1 ns, in the handler), injection -> VM entry, VM entry -> guest handler",
              {("irqfd (kvm_msi_set_irq)", h + irqfd), ("KVM injection -> VM entry", h + inj),
               ("VM entry -> guest handler", h + inj + entry)} <= names)
    check("the host and guest hops of a flow: the same interrupt's (host i + its stages)",
          len(got) == n and len({f[0][1] for f in got}) == n, len(got))


# synth.h: the guest workload of `gentrace merged app`; perfetto_ids.h /
# fleet.md: a guest's real ids are exported + 0x50000000
GUEST_PID, GUEST_TID, GUEST_BASE = 300, 301, 0x50000000


def check_merged_app(path):
    ev, _ = load_json(path)
    json_ids(ev, set(), set())      # the guest's own ids moved above the host's
    gp, gt = GUEST_BASE + GUEST_PID, GUEST_BASE + GUEST_TID
    calls = sorted(((e["name"], ns(e["ts"]), ns(e["ts"] + e["dur"])) for e in ev
                    if e["ph"] == "X" and (e["pid"], e["tid"]) == (gp, gt)), key=lambda c: c[1])
    check(f"guest thread ({GUEST_PID}, {GUEST_TID}) as ({gp}, {gt}): its call and, inside it, "
          "the sync that names no thread", [c[0] for c in calls] == ["cuCtxSynchronize", "context_synchronize"]
          and calls[0][1] < calls[1][1] and calls[1][2] < calls[0][2], calls)
    streams = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "M" and e["name"] == "thread_name"
               and e["args"]["name"] == "CUDA stream 3"}
    kernels = [(e["pid"], e["tid"]) for e in ev if e["ph"] == "X" and e["name"] == "add"]
    check(f"the guest's kernel on its process ({gp})'s stream 3 track",
          len(streams) == 1 and kernels == list(streams) and kernels[0][0] == gp, (streams, kernels))


def shape_json(path, slack_ns=0):
    ev, track = load_json(path)
    json_tracks(ev, track)
    starts, ends = {}, {}
    for e in ev:
        if e["ph"] in ("s", "f"):
            (starts if e["ph"] == "s" else ends).setdefault(e["id"], []).append(ns(e["ts"]))
    bad = [k for k in set(starts) | set(ends) if len(starts.get(k, [])) != 1 or len(ends.get(k, [])) != 1]
    check("every flow id starts once and ends once", not bad, bad[:5])
    # between two machines an end may precede its start by the clocks' error bound
    bad = [k for k in starts if k in ends and ends[k][0] < starts[k][0] - slack_ns]
    check("no flow ends before it starts" +
          (f" by more than the clock bound {slack_ns} ns" if slack_ns else ""), not bad, bad[:5])


def shape_proto(path):
    trace, _ = parse_text(open(path).read().splitlines())
    tracks, names, events = {}, {}, []
    for p in trace.get("packet", []):
        for td in p.get("track_descriptor", []):
            tracks[one(td, "uuid")] = one(td, "name")
        for te in p.get("track_event", []):
            events.append((int(one(p, "timestamp")), te, ""))
    slices, instants = proto_slices(events, tracks)
    starts, ends = {}, {}
    for ts, te, _ in events:
        for f in te.get("flow_ids", []):
            starts.setdefault(int(f), []).append((ts, one(te, "type")))
        for f in te.get("terminating_flow_ids", []):
            ends.setdefault(int(f), []).append(ts)
    bad = [f for f, s in starts.items() if s[0][1] != "TYPE_SLICE_BEGIN"]
    check("every flow starts on a slice", not bad, bad[:5])
    bad = [f for f in set(starts) | set(ends) if len(ends.get(f, [])) != 1 or f not in starts]
    check("every flow id that starts ends exactly once", not bad, bad[:5])


def main(argv):
    global quiet
    if len(argv) > 1 and argv[1] == "-q":
        quiet = True
        argv = argv[:1] + argv[2:]
    if len(argv) == 3 and argv[1] == "proto":
        check_proto(argv[2])
    elif len(argv) == 3 and argv[1] == "json":
        check_json(argv[2])
    elif len(argv) == 4 and argv[1] == "shape" and argv[2] in ("json", "proto"):
        (shape_json if argv[2] == "json" else shape_proto)(argv[3])
    elif len(argv) == 5 and argv[1] == "shape" and argv[2] == "json":
        shape_json(argv[3], int(float(argv[4])))
    elif len(argv) == 3 and argv[1] == "merged-app":
        check_merged_app(argv[2])
    elif len(argv) in (4, 5) and argv[1] == "crossing" and argv[4:] in ([], ["host_path"]):
        check_crossing(argv[2], int(argv[3]), argv[4:] == ["host_path"])
    elif len(argv) == 6 and argv[1] == "merged":
        check_merged(argv[2], int(argv[3]), int(argv[4]), int(argv[5]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
