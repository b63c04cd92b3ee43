#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A synthetic xentrace file and what it holds, for tests/xentrace.sh.

Written from Xen's own definitions, not from gpuprobe's parser: the record
layout of xen/include/public/trace.h (header word: event in bits 0-27,
extra words in 28-30, TSC present in 31; then the TSC low word first; then
the extra words), the CPU-change record xentrace writes before each window
of a CPU's buffer (tools/xentrace/xentrace.c: int cpu, unsigned
window_size), the payloads Xen 4.17 writes (do_IRQ: TRACE_3D(irq, tsc_in,
tsc_out) with a TSC; HVMTRACE_2D(INJ_VIRQ, vector, fake) without one;
insert_lost_records: u32 lost, u16 dom, u16 vcpu, u64 first_tsc, with a
TSC; insert_wrap_record: padding).  The expected counts are counted here
as the records are made.

usage: xentrace_synth.py OUT.bin EXPECTED.json [--seed N] [--cut]
  --cut  stop the file inside its last record: what comes before counts
"""
import json
import random
import struct
import sys

CYCLES = 1 << 31
TRC_GEN = 0x0001F000
TRC_LOST_RECORDS = TRC_GEN + 1
TRC_TRACE_WRAP_BUFFER = TRC_GEN + 2
TRC_TRACE_CPU_CHANGE = TRC_GEN + 3
TRC_HVM_VMENTRY = 0x00081001
TRC_HVM_VMEXIT64 = 0x00081102
TRC_HVM_INJ_VIRQ = 0x00082004
TRC_HVM_REINJ_VIRQ = 0x00082005
TRC_HVM_INTR = 0x0008200F
TRC_HVM_NESTEDFLAG = 0x400
TRC_HW_IRQ_ASSIGN_VECTOR = 0x00802006
TRC_HW_IRQ_HANDLED = 0x00802008
MASK32 = 0xFFFFFFFF


def record(event, extra, tsc=None):
    """The bytes of one record."""
    hdr = event | (len(extra) << 28) | (CYCLES if tsc is not None else 0)
    out = struct.pack("<I", hdr)
    if tsc is not None:
        out += struct.pack("<II", tsc & MASK32, tsc >> 32)
    return out + b"".join(struct.pack("<I", w & MASK32) for w in extra)


class Expect:
    def __init__(self):
        self.irqs = {}       # irq -> [count, cycles max, cycles sum]
        self.vectors = {}    # vector -> injections
        self.injections = 0
        self.reinjections = 0
        self.lost = 0
        self.lost_records = 0
        self.untimed = 0
        self.nested = 0

    def as_dict(self):
        return {
            "phys_irqs": sum(c[0] for c in self.irqs.values()),
            "injections": self.injections,
            "reinjections": self.reinjections,
            "lost": self.lost,
            "untimed": self.untimed,
            "nested": self.nested,
            "irqs": {str(k): {"count": c, "cycles_max": m, "cycles_mean": t // c}
                     for k, (c, m, t) in self.irqs.items()},
            "vectors": {str(k): v for k, v in self.vectors.items()},
        }


def cpu_records(rng, cpu, tsc):
    """One CPU's records: (bytes, what it adds to the expectation, tsc) triples."""
    out = []
    # a CPU's first record without a TSC: it has none to inherit
    out.append((record(TRC_HVM_INJ_VIRQ, [0xF3, 0]), ("inj", 0xF3, False)))
    marked = 1
    for _ in range(rng.randrange(200, 400)):
        before = tsc
        tsc += rng.randrange(1000, 200000)
        kind = rng.random()
        boundary = (tsc >> 32) << 32
        if before < boundary:
            # a handler across the TSC's low word wrapping (Xen keeps only
            # the low words of its entry and exit)
            irq = 28
            tsc_in = boundary - rng.randrange(10, 3000)
            tsc_out = boundary + rng.randrange(10, 3000)
            tsc = max(tsc, tsc_out + 20)
            out.append((record(TRC_HW_IRQ_HANDLED, [irq, tsc_in, tsc_out], tsc),
                        ("irq", irq, tsc_out - tsc_in)))
        elif kind < 0.35:
            irq = rng.choice([28, 29, 9])
            cycles = rng.randrange(50, 5000)
            tsc_in = tsc - cycles - rng.randrange(1, 40)
            tsc_out = tsc_in + cycles
            out.append((record(TRC_HW_IRQ_HANDLED, [irq, tsc_in, tsc_out], tsc),
                        ("irq", irq, cycles)))
        elif kind < 0.65:
            vec = rng.choice([0xF3, 0x31, 0xEF])
            nested = rng.random() < 0.05
            ev = TRC_HVM_INJ_VIRQ | (TRC_HVM_NESTEDFLAG if nested else 0)
            out.append((record(ev, [vec, 0]), ("inj", vec, nested)))
        elif kind < 0.67:
            out.append((record(TRC_HVM_REINJ_VIRQ, [0x31]), ("reinj",)))
        elif kind < 0.75:
            out.append((record(TRC_HVM_VMEXIT64, [0x60, 0x81000000, 0xFFFFFFFF], tsc), None))
            out.append((record(TRC_HVM_INTR, []), None))
        elif kind < 0.85:
            out.append((record(TRC_HVM_VMENTRY, [], tsc), None))
        elif kind < 0.90:
            # an event gpuprobe does not read, with a TSC
            out.append((record(TRC_HW_IRQ_ASSIGN_VECTOR, [28, 0x51, 1], tsc), None))
        elif kind < 0.92:
            lost = rng.randrange(1, 1000)
            first_lost = tsc - rng.randrange(1000, 100000)
            out.append((record(TRC_LOST_RECORDS,
                               [lost, (cpu << 16) | 0x7FF0, first_lost, first_lost >> 32], tsc),
                        ("lost", lost)))
        elif kind < 0.95:
            # padding to a buffer's end: up to 7 extra words, with a TSC when more
            n = rng.randrange(0, 8)
            out.append((record(TRC_TRACE_WRAP_BUFFER, [0] * n,
                               tsc if rng.random() < 0.3 else None), None))
        else:
            out.append((record(TRC_HVM_INJ_VIRQ, [0x31, 0]), ("inj", 0x31, False)))
        # every record of this step is at this tsc (the untimed ones after it)
        while marked < len(out):
            out[marked] = out[marked] + (tsc,)
            marked += 1
    out[0] = out[0] + (0,)
    return out, tsc


def count(exp, what):
    if what is None:
        return
    if what[0] == "irq":
        c = exp.irqs.setdefault(what[1], [0, 0, 0])
        c[0] += 1
        c[1] = max(c[1], what[2])
        c[2] += what[2]
    elif what[0] == "inj":
        exp.injections += 1
        exp.untimed += 1
        exp.nested += what[2]
        exp.vectors[what[1]] = exp.vectors.get(what[1], 0) + 1
    elif what[0] == "reinj":
        exp.reinjections += 1
        exp.untimed += 1
    elif what[0] == "lost":
        exp.lost += what[1]
        exp.lost_records += 1


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    seed = 26
    for a in sys.argv[1:]:
        if a.startswith("--seed="):
            seed = int(a.split("=", 1)[1])
    cut = "--cut" in sys.argv
    rng = random.Random(seed)
    # every CPU's records on one TSC timeline (Xen's TSCs are in step), cut
    # as xentrace reads them: passes over the CPUs in order, each taking
    # what a CPU wrote since the last pass (no window where it wrote nothing)
    # a little before a 2^32 boundary: the TSC's low word wraps on the way,
    # inside some handlers (Xen keeps only their low words)
    base = (rng.randrange(2, 5) << 32) - rng.randrange(5000000, 20000000)
    per_cpu = {}
    end = 0
    for cpu in (0, 1, 3):
        per_cpu[cpu], last = cpu_records(rng, cpu, base + rng.randrange(0, 50000))
        end = max(end, last)
    order = []
    t = base
    while any(per_cpu.values()):
        t += rng.randrange(200000, 3000000)
        for cpu in (0, 1, 3):
            recs = per_cpu[cpu]
            n = 0
            while n < len(recs) and recs[n][2] < t:
                n += 1
            if n:
                order.append((cpu, [(r, w) for r, w, _ in recs[:n]]))
                per_cpu[cpu] = recs[n:]
    data = b""
    exp = Expect()
    for idx, (cpu, recs) in enumerate(order):
        body = b"".join(r for r, _ in recs)
        data += record(TRC_TRACE_CPU_CHANGE, [cpu, len(body)])
        last = idx == len(order) - 1
        for j, (r, what) in enumerate(recs):
            if cut and last and j == len(recs) - 1:
                # the file stops inside this record: it and nothing after counts
                data += r[:len(r) - 2] if len(r) > 4 else r[:2]
                break
            data += r
            count(exp, what)
    with open(args[0], "wb") as f:
        f.write(data)
    d = exp.as_dict()
    d["cut"] = cut
    d["bytes"] = len(data)
    with open(args[1], "w") as f:
        json.dump(d, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
