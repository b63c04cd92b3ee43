#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The IOMMU records in the trace (issue 23): an IOMMU mode record (0x800e)
# and, inside a timed unmap, three part records (type 10, struct
# gpuprobe_rec_iommu_part: Documentation/trace-format.md) put by hand
# before the end record of a version 1 trace, with values chosen here;
# report (text, --json) and both dumps (the C reader, tracedump.py) must
# give those values back.
. "$(dirname "$0")/common.sh"
D=$(dirname "$0")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$D/gentrace" known "$T/known.trace"
python3 - "$T/known.trace" "$T/p.trace" "$T/lazy.trace" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
hsize = struct.unpack_from("<I", b, 12)[0]
off, last = hsize, None
while off < len(b):                    # version 1: records back to back
    typ, size = struct.unpack_from("<HH", b, off)
    if typ == 0x8002:
        last = off
    off += size
assert struct.unpack_from("<I", b, 8)[0] == 1 and last is not None
bdf = (0 << 16) | (0x21 << 8) | 0x00    # 0000:21:00.0
# iommu_mode: hdr, bdf, flags (present | caching mode known), page sizes 4K|2M, vendor, type
mode = struct.pack("<HHHHQIIQ16s16s", 0x800E, 64, 0, 0, 1000, bdf, 0x3,
                   (1 << 12) | (1 << 21), b"intel", b"DMA-FQ")
# an unmap at 5000 of 10000 ns: hdr, bdf, op 2, dir, res, bytes, addr, nents,
# iommu_calls, duration, iommu_ns
dma = struct.pack("<HHHHQIHBBQQIIQQ", 6, 64, 0, 0, 5000, bdf, 2, 1, 0, 4096, 0x1000,
                  1, 1, 10000, 3000)
def part(ts, p, depth, dur, self, call_ts, arg):
    return struct.pack("<HHHHQIHHQQQII", 10, 56, 1, 0, ts, bdf, p, depth, dur, self,
                       call_ts, 7, arg)
# page table 2000, invalidation 6000 (one descriptor), IOVA free 500
parts = part(5100, 4, 0, 2000, 2000, 5000, 1) + part(7200, 5, 0, 6000, 6000, 5000, 1) + \
        part(13300, 2, 0, 500, 500, 5000, 1)
recs = mode + parts + dma
assert len(recs) == 64 * 2 + 56 * 3
end = bytearray(b[last:])               # the end record counts the records before it
struct.pack_into("<Q", end, 16, struct.unpack_from("<Q", end, 16)[0] + 5)
open(sys.argv[2], "wb").write(b[:last] + recs + bytes(end))
# the same unmap in lazy mode: 2000 ns, page table 1000, nothing invalidated in
# it; the flush-queue timer later: 300 own, its flush 200, the invalidation 100
dma = dma[:16] + struct.pack("<IHBBQQIIQQ", bdf, 2, 1, 0, 4096, 0x1000, 1, 1, 2000, 1000)
recs = mode
recs += part(5100, 4, 0, 1000, 1000, 5000, 1) + dma + part(20000, 5, 2, 100, 100, 0, 1) + \
        part(19900, 7, 1, 300, 200, 0, 0) + part(19800, 8, 0, 600, 300, 0, 0)
end = bytearray(b[last:])
struct.pack_into("<Q", end, 16, struct.unpack_from("<Q", end, 16)[0] + 6)
open(sys.argv[3], "wb").write(b[:last] + recs + bytes(end))
PY
"$GPT" report "$T/p.trace" >"$T/r.txt" 2>&1
rc=$?
# 10000 ns: invalidation 6000 = 60 %, page tables 2000 = 20 %, IOVA 500 = 5 %, other 1500 = 15 %
check "report: the split of the unmap as written" \
	sh -c '[ "$1" -eq 0 ] && grep -q "^  0000:21:00.0: map/unmap time 10.00us (.*): invalidation 60.0 %, page tables 20.0 %, IOVA 5.0 %, deferral 0.0 %, other 15.0 %$" "$2"' \
	_ "$rc" "$T/r.txt"
check "report: the mode as written (lazy, caching mode off, 4K and 2M)" \
	sh -c 'grep -q "IOMMU: intel, domain DMA-FQ: lazy" "$1" && grep -q "caching mode off; page sizes 4K 2M$" "$1"' \
	_ "$T/r.txt"
check "report --json: iommu_parts and iommu_mode as written" sh -c \
	'"$1" report --json "$2" | python3 -c "
import json, sys
d = json.load(sys.stdin)
t = d[\"iommu_parts\"][\"targets\"][0]
assert t[\"bdf\"] == \"0000:21:00.0\" and t[\"unmaps\"] == 1 and t[\"maps\"] == 0, t
assert t[\"ns\"] == dict(invalidation=6000, page_tables=2000, iova=500, deferral=0, other=1500), t
assert [(p[\"part\"], p[\"count\"], p[\"self_ns\"][\"max\"]) for p in t[\"parts\"]] == \
    [(\"iova_free\", 1, 500), (\"pgtable_unmap\", 1, 2000), (\"invalidate\", 1, 6000)], t
m = d[\"iommu_mode\"][0]
assert (m[\"present\"], m[\"vendor\"], m[\"domain_type\"], m[\"caching_mode\"], m[\"page_sizes\"]) == \
    (True, \"intel\", \"DMA-FQ\", False, 4096 + 2097152), m"' _ "$GPT" "$T/p.trace"
"$GPT" report --json "$T/known.trace" >"$T/k.json"
check "report --json of a trace without them: iommu_parts null, iommu_mode empty" \
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["iommu_parts"] is None and d["iommu_mode"] == []' "$T/k.json"
"$D/gentrace" dump "$T/p.trace" >"$T/c.txt" 2>&1
python3 "$D/tracedump.py" "$T/p.trace" >"$T/py.txt" 2>&1
check "the C reader's dump of the new records is tracedump.py's, line for line" \
	sh -c 'cmp -s "$1" "$2" && grep -q "^record iommu_part type=10 size=56 .* part=5 depth=0 duration_ns=6000 self_ns=6000 call_ts=5000 domain=7 arg=1" "$2" &&
	grep -q "^record iommu_mode type=32782 size=64 .* flags=3 pgsizes=2101248 " "$2"' _ "$T/c.txt" "$T/py.txt"
"$GPT" export "$T/p.trace" --perfetto "$T/p.json" >/dev/null 2>&1
check "export --perfetto: the three parts inside their unmap's slice, on its track" python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
call = [e for e in ev if e.get("cat") == "dma" and e["ts"] == 5.0]
parts = [e for e in ev if e.get("cat") == "iommu_part"]
assert len(call) == 1 and len(parts) == 3, (call, parts)
c = call[0]
for p in parts:
    assert (p["pid"], p["tid"]) == (c["pid"], c["tid"]), p
    assert c["ts"] <= p["ts"] and p["ts"] + p["dur"] <= c["ts"] + c["dur"], (p, c)
assert sorted(p["name"] for p in parts) == ["invalidate", "iova_free", "pgtable_unmap"]' "$T/p.json"
# by hand: 10000 -> 2000 ns per unmap, saved 8000 per unmap, 8000 - 600 (the timer's) in all
"$GPT" compare "$T/p.trace" "$T/lazy.trace" >"$T/cmp.txt" 2>&1
check "compare of two traces: what RUN saved per unmap and in all, less its timer" \
	grep -q "per unmap 10.00us -> 2.00us: RUN saved 8.00us per unmap, 7.40us over its 1 unmaps less the 600ns its flush-queue timer spent" "$T/cmp.txt"
check "compare of two traces: the invalidation moved out of the unmap, and the timer said" \
	sh -c 'grep -q "invalidation per unmap 6.00us -> 0ns; invalidations 1 for 1 unmaps -> 1 for 1" "$1" &&
	grep -q "RUN.s cost: 1 flush-queue timer flushes (600ns outside the calls)" "$1"' _ "$T/cmp.txt"
check "compare --json of two traces: saved_per_unmap_ns 8000, saved_ns 7400" sh -c \
	'"$1" compare --json "$2" "$3" | python3 -c "
import json, sys
t = json.load(sys.stdin)[\"iommu_parts\"][0]
assert (t[\"saved_per_unmap_ns\"], t[\"saved_ns\"], t[\"run_fq_timer_flushes\"]) == (8000, 7400, 1), t"' \
	_ "$GPT" "$T/p.trace" "$T/lazy.trace"
finish
