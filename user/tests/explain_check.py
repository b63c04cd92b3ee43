#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The interrupt waterfall's classes and counts of a traced probe run,
worked out without gpuprobe-trace: the trace file read by its documented
layout (format version 1: include/uapi/linux/gpuprobe.h, lib/tracefile.h),
the waits from the probe output, and the rules of Documentation/explain.md
(analysis/explain_wake.c's comment) applied by plain scans:

  the wake-up that ended a wait: the waiting thread's last one inside
  [launched, return]; none: not asleep.  Its handler: the target's latest
  handler running at the wake-up (woken inside it), else the latest entered
  since GPU end - bound (deferred); none: other waker.  A handler entered
  more than the bound before GPU end: coalesced; else the interrupt path.

  explain_check.py PROBE.json TRACE TID BDF  prints a JSON object of the
  counts per probe (kernel_spin_ns 0: sync_wake, else sync_wake_<N>us).
"""
import json
import struct
import sys

EV_IRQ, EV_WAKEUP, EV_SWITCH = 1, 4, 5
HDR = struct.Struct("<HHHHQ")          # type, size, cpu, flags, ts_ns
IRQ = struct.Struct("<IIIIQ")          # bdf, irq, vector, reserved, duration_ns
SCHED = struct.Struct("<IIII")         # pid, tgid, prev_pid, target_cpu


def read_trace(path, tid, bdf):
    data = open(path, "rb").read()
    if data[:8] != b"GPUPROBE" or struct.unpack_from("<I", data, 8)[0] != 1:
        raise SystemExit(f"{path}: not a version 1 trace")
    off = struct.unpack_from("<I", data, 12)[0]
    irqs, wakes, switches = [], [], []
    while off + HDR.size <= len(data):
        typ, size, cpu, flags, ts = HDR.unpack_from(data, off)
        if size < HDR.size or size % 8 or off + size > len(data):
            raise SystemExit(f"{path}: bad record size {size} at offset {off}")
        body = off + HDR.size
        if typ == EV_IRQ:
            rbdf, irq, _, _, dur = IRQ.unpack_from(data, body)
            if rbdf == bdf:
                irqs.append((ts, ts + dur))
        elif typ in (EV_WAKEUP, EV_SWITCH):
            pid = SCHED.unpack_from(data, body)[0]
            if pid == tid:
                (wakes if typ == EV_WAKEUP else switches).append(ts)
        off += size
    return sorted(irqs), sorted(wakes), sorted(switches)


def classify(w, irqs, wakes, bound):
    """(class, woken inside the handler, the handler, the wake-up)"""
    inside = [x for x in wakes if w["launched_ns"] <= x <= w["return_ns"]]
    if not inside:
        return "not_asleep", False, None, None
    wake = inside[-1]
    entered = [h for h in irqs if h[0] <= wake]
    running = [h for h in entered if h[1] >= wake]
    if running:
        h, woke_inside = max(running), True
    elif entered and entered[-1][0] >= w["gpu_end_ns"] - bound:
        h, woke_inside = entered[-1], False
    else:
        return "other_waker", False, None, wake
    if h[0] + bound < w["gpu_end_ns"]:
        return "coalesced", False, h, wake
    return "interrupt", woke_inside, h, wake


def nearest_rank(values, p):
    v = sorted(values)
    return v[max(0, -(-len(v) * p // 100) - 1)] if v else None


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    probe = json.load(open(argv[1]))
    irqs, wakes, _ = read_trace(argv[2], int(argv[3]), int(argv[4], 0))
    api = probe["apis"][0]
    bound = api["clock_calibration"]["error_bound_ns"]
    out = {}
    for w in api["sync_wake_samples"]:
        if not w.get("blocking") or not w.get("gpu_end_ns"):
            continue
        spin = w.get("kernel_spin_ns", 0)
        name = "sync_wake" if not spin else f"sync_wake_{spin // 1000}us"
        o = out.setdefault(name, {"samples": 0, "classes": {}, "woken_inside_handler": 0,
                                  "irq_entry_within_bound": 0, "violations": 0, "end_to_entry": [],
                                  "handler": []})
        cls, woke_inside, h, wake = classify(w, irqs, wakes, bound)
        end = w["gpu_end_ns"]
        o["samples"] += 1
        o["classes"][cls] = o["classes"].get(cls, 0) + 1
        o["woken_inside_handler"] += woke_inside
        if cls == "interrupt":
            o["irq_entry_within_bound"] += h[0] < end
            o["end_to_entry"].append(h[0] - end)
            o["handler"].append(h[1] - h[0])
        # causality: no return, wake-up (or path entry) before GPU end beyond the bound
        o["violations"] += w["return_ns"] + bound < end or (wake is not None and wake + bound < end)
    for o in out.values():
        o["end_to_entry_p50"] = nearest_rank(o.pop("end_to_entry"), 50)
        o["handler_p50"] = nearest_rank(o.pop("handler"), 50)
    out["handlers"] = len(irqs)
    out["wakeups"] = len(wakes)
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
