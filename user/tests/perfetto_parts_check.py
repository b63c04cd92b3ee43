#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The IOMMU parts in `export --perfetto-proto`, checked against the
trace's construction (synth_parts.c; keep the two in step), not against
the tool: where each part must be drawn is worked out below by hand from
the events the generator writes.

  perfetto_parts_check.py DECODED   the export of `gentrace parts`, as
                                    `protoc --decode` printed it

Slices are rebuilt per track as trace processor takes them (by timestamp,
at equal timestamps in packet order: perfetto_check.py says why), each
with the slice it is nested in.  Every part must be drawn exactly once,
named as Documentation/trace-format.md numbers the parts; a part of a
recorded call on that call's track, inside its slice, under the part its
depth puts it in; a part in no call on its target's "IOMMU flush queue"
lanes; a part that cannot nest (it crosses its call's end) alone on a
DMA lane of its own.  Prints PASS/FAIL lines (-q: FAIL only); exits 1
when one failed.
"""
import sys

import perfetto_check as pc
from perfetto_check import check, one

T0 = 1000000000
A, B = "0000:01:00.0", "0000:02:00.0"
# Documentation/trace-format.md: "1 iova_alloc, 2 iova_free, ..."
PART_NAMES = {1: "iova_alloc", 2: "iova_free", 3: "pgtable_map", 4: "pgtable_unmap",
              5: "invalidate", 6: "defer", 7: "flush", 8: "fq_timer"}

# DMA calls: id -> (target, op name, from, to), ns after T0
CALLS = {
    1: (A, "map_sg", 10000, 20000), 2: (A, "unmap_page", 12000, 30000),
    3: (A, "unmap_sg", 40000, 60000), 4: (A, "map_page", 70000, 80000),
    5: (A, "unmap_page", 90000, 96000), 6: (A, "unmap_page", 140000, 150000),
    7: (B, "map_page", 10000, 20000),
}
# Parts: id -> (target, part number, depth, from, to, self_ns, arg, where, parent)
# (part 1 is slow: the rcache did not serve it)
# where: a call id (drawn in it), "fq" (in no call), "orphan" (its call is
# not in the trace), "alone" (crosses its call's end); parent: the part id
# it must be drawn in, None: directly in its call (or at the top of its lane).
PARTS = {
    # call 1 and the overlapping call 2
    1: (A, 1, 0, 10100, 10600, 500, 1, 1, None),
    2: (A, 3, 0, 11000, 13000, 2000, 16, 1, None),
    3: (A, 5, 0, 13100, 15000, 1900, 1, 1, None),
    4: (A, 4, 0, 12500, 14000, 1500, 1, 2, None),
    5: (A, 5, 0, 14500, 25000, 10500, 2, 2, None),
    6: (A, 2, 0, 25500, 26000, 500, 1, 2, None),
    # call 3: defer > (flush > invalidate), iova_free, iova_free (after the call's record)
    7: (A, 4, 0, 40500, 42000, 1500, 4, 3, None),
    8: (A, 6, 0, 43000, 58000, 7000, 1, 3, None),
    9: (A, 7, 1, 44000, 50000, 2000, 0, 3, 8),
    10: (A, 5, 2, 45000, 49000, 4000, 1, 3, 9),
    11: (A, 2, 1, 51000, 52000, 1000, 1, 3, 8),
    12: (A, 2, 1, 53000, 54000, 1000, 1, 3, 8),
    # call 4: at its start, to its end
    13: (A, 1, 0, 70000, 71000, 1000, 1, 4, None),
    14: (A, 3, 0, 72000, 80000, 8000, 1, 4, None),
    # call 5: one interval, nested by depth alone
    15: (A, 6, 0, 90000, 95000, 0, 1, 5, None),
    16: (A, 7, 1, 90000, 95000, 0, 0, 5, 15),
    17: (A, 5, 2, 90000, 95000, 5000, 1, 5, 16),
    # the flush queue's timers (CPU 0, CPU 1 overlapping it) and a flush on its own
    18: (A, 8, 0, 100000, 110000, 5600, 0, "fq", None),
    19: (A, 7, 0, 100500, 104000, 1000, 0, "fq", 18),
    20: (A, 5, 1, 101000, 103500, 2500, 1, "fq", 19),
    21: (A, 2, 0, 105000, 105500, 500, 1, "fq", 18),
    22: (A, 2, 0, 106000, 106400, 400, 1, "fq", 18),
    23: (A, 8, 0, 102000, 108000, 5500, 0, "fq", None),
    24: (A, 7, 0, 102500, 103000, 500, 0, "fq", 23),
    25: (A, 7, 0, 120000, 121000, 1000, 0, "fq", None),
    26: (A, 1, 0, 130100, 130500, 400, 1, "orphan", None),
    # call 6: one inside, one across its end
    27: (A, 2, 0, 141000, 142000, 1000, 1, 6, None),
    28: (A, 4, 0, 149000, 151000, 2000, 1, "alone", None),
    # target B's call 7, the same start as A's call 1
    29: (B, 3, 0, 10500, 12000, 1500, 1, 7, None),
}


def load(path):
    """Slices: dicts of track (uuid), target, lane (its name), name,
    category, begin, end, args, parent (index or None)."""
    trace, _ = pc.parse_text(open(path).read().splitlines())
    packets = trace.get("packet", [])
    desc = pc.descriptors(packets)
    names, cats, events = {}, {}, []
    for p in packets:
        for idata in p.get("interned_data", []):
            for n in idata.get("event_names", []):
                names[one(n, "iid")] = one(n, "name")
            for c in idata.get("event_categories", []):
                cats[one(c, "iid")] = one(c, "name")
        for te in p.get("track_event", []):
            events.append((int(one(p, "timestamp")), te))
    slices, stacks = [], {}
    for ts, te in sorted(events, key=lambda e: e[0]):       # stable: packet order at one ts
        track, kind = one(te, "track_uuid"), one(te, "type")
        if kind == "TYPE_SLICE_BEGIN":
            lane, parent_uuid = desc.get(track, ("?", None))[:2]
            stack = stacks.setdefault(track, [])
            slices.append({
                "track": track, "lane": lane,
                "target": (desc.get(parent_uuid, ("?",))[0] or "?")[:12],
                "name": names.get(one(te, "name_iid"), one(te, "name")),
                "category": [cats.get(i) for i in te.get("category_iids", [])],
                "begin": ts, "end": None, "parent": stack[-1] if stack else None,
                "args": {one(a, "name"): int(one(a, "uint_value", -1))
                         for a in te.get("debug_annotations", [])},
            })
            stack.append(len(slices) - 1)
        elif kind == "TYPE_SLICE_END" and stacks.get(track):
            slices[stacks[track].pop()]["end"] = ts
    return slices


def check_parts(path):
    slices = load(path)
    check("every slice ended", all(s["end"] is not None for s in slices),
          [s for s in slices if s["end"] is None][:2])
    parts = [i for i, s in enumerate(slices) if s["category"] == ["iommu_part"]]
    want = sorted((t, PART_NAMES[n], T0 + a, T0 + b) for t, n, _, a, b, *_ in PARTS.values())
    got = sorted((slices[i]["target"], slices[i]["name"], slices[i]["begin"], slices[i]["end"])
                 for i in parts)
    check(f"each of the {len(PARTS)} parts drawn exactly once, named as trace-format.md numbers "
          "them, at its times, under its target", got == want,
          sorted(set(got) ^ set(want))[:4] or (len(got), len(want)))

    def find(target, name, begin, end, category):
        hits = [i for i, s in enumerate(slices)
                if (s["target"], s["name"], s["begin"], s["end"]) == (target, name, begin, end)
                and s["category"] == [category]]
        return hits[0] if len(hits) == 1 else None

    call = {k: find(t, n, T0 + a, T0 + b, "dma") for k, (t, n, a, b) in CALLS.items()}
    check("each DMA call drawn once, category dma, on a DMA lane of its target",
          all(i is not None and slices[i]["lane"].startswith("DMA") for i in call.values()), call)
    if None in call.values():
        return
    check("the overlapping calls 1 and 2 on two lanes", slices[call[1]]["track"] != slices[call[2]]["track"])
    part = {k: find(t, PART_NAMES[n], T0 + a, T0 + b, "iommu_part")
            for k, (t, n, _, a, b, *_) in PARTS.items()}
    if None in part.values():
        check("every part found once", False, [k for k, i in part.items() if i is None])
        return

    bad = []
    for k, (t, n, depth, a, b, own, arg, where, parent) in PARTS.items():
        s = slices[part[k]]
        if s["args"] != {"self_ns": own, "depth": depth, "arg": arg, "slow": int(k == 1)}:
            bad.append((k, "args", s["args"]))
        if isinstance(where, int):
            c = slices[call[where]]
            want_parent = call[where] if parent is None else part[parent]
            if s["track"] != c["track"]:
                bad.append((k, "not on its call's track", s["lane"], c["lane"]))
            if not c["begin"] <= s["begin"] <= s["end"] <= c["end"]:
                bad.append((k, "outside its call", s["begin"], s["end"]))
            if s["parent"] != want_parent:
                bad.append((k, "nested in", s["parent"], "not", want_parent))
    check("every part of a recorded call on that call's track, inside its slice, nested by depth "
          "(directly in the call at depth 0, else in its enclosing part), its self_ns/depth/arg/slow "
          "as written", not bad, bad[:4])

    bad = []
    for k, (t, n, depth, a, b, own, arg, where, parent) in PARTS.items():
        s = slices[part[k]]
        if where == "fq":
            if not s["lane"].startswith("IOMMU flush queue") or s["target"] != t:
                bad.append((k, "lane", s["target"], s["lane"]))
            if s["parent"] != (None if parent is None else part[parent]):
                bad.append((k, "nested in", s["parent"]))
    check("the parts in no call on their target's 'IOMMU flush queue' lanes: timer > flush > "
          "invalidate, its frees in the timer, a flush on its own at the top", not bad, bad[:4])
    timers = {slices[part[18]]["track"], slices[part[23]]["track"]}
    check("the two overlapping timers (CPU 0, CPU 1) on two flush-queue lanes", len(timers) == 2)
    fq = {s["lane"] for s in slices if s["lane"].startswith("IOMMU flush queue")}
    check("no part of a call on a flush-queue lane",
          all(slices[part[k]]["lane"] in fq for k, p in PARTS.items() if p[7] == "fq") and
          all(slices[part[k]]["lane"] not in fq for k, p in PARTS.items() if p[7] != "fq"))

    o, x = slices[part[26]], slices[part[28]]
    check("a part naming no recorded call: on a DMA lane of its target, in no slice",
          o["lane"].startswith("DMA") and o["target"] == A and o["parent"] is None, o)
    check("a part crossing its call's end: alone on a DMA lane, not its call's, in no slice",
          x["lane"].startswith("DMA") and x["target"] == A and x["parent"] is None and
          x["track"] != slices[call[6]]["track"] and
          not any(s["parent"] == part[28] for s in slices), x)
    check("target B's part in B's call, not in A's call of the same start",
          slices[part[29]]["parent"] == call[7] and slices[call[7]]["target"] == B)
    check("the IOMMU map stays on its IOMMU lane",
          [(s["name"], s["begin"]) for s in slices if s["lane"] == "IOMMU"] == [("map", T0 + 10900)])


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["-q"]:
        pc.quiet = True
        args = args[1:]
    check_parts(args[0])
    print(f"{pc.passes} passed, {pc.fails} failed")
    sys.exit(1 if pc.fails else 0)
