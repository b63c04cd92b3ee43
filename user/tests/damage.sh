#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Damaged and cut traces through the command line: bytes flipped inside a
# chunk make `report` name the chunk's offset, mark the file damaged and
# its counts lower bounds, and count every other chunk exactly; a recording
# cut inside its one chunk keeps every whole record before the cut; the
# same for a trace of every record type (gentrace fields-all).  The
# expected numbers come from tests/gentrace's own records (the same trace
# written as version 1) and a compact-encoding length model written here
# from Documentation/trace-format.md, never from the tool's output.
. "$(dirname "$0")/common.sh"
GEN=$(cd "$(dirname "$0")" && pwd)/gentrace
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

cat >"$T/model.py" <<'EOF'
import json, struct, sys

def header(d):
    assert d[:8] == b'GPUPROBE'
    return struct.unpack_from('<I', d, 8)[0], struct.unpack_from('<I', d, 12)[0]

def v1_records(path):
    d = open(path, 'rb').read()
    version, off = header(d)
    assert version == 1
    recs = []
    while off < len(d):
        size = struct.unpack_from('<H', d, off + 2)[0]
        recs.append(d[off:off + size])
        off += size
    return d, recs

def chunks(d):
    # (offset, header bytes, stored_size, records): version 2 headers are 24 bytes, 3's 32
    version, off = header(d)
    hsize = 24 if version == 2 else 32
    out = []
    while off < len(d):
        _, _, stored, _, nrec, _ = struct.unpack_from('<4sIIIII', d, off)
        out.append((off, hsize, stored, nrec))
        off += hsize + stored
    return out

def zz(v, bits):
    v &= (1 << bits) - 1
    if v >> (bits - 1):
        v -= 1 << bits
    return ((v << 1) ^ (v >> (bits - 1))) & ((1 << bits) - 1)

def compact_ends(recs):
    # where each record ends in a chunk's compact bytes (trace-format.md, "The compact encoding")
    tmpl, prev, pos, ends = {}, 0, 0, []
    for r in recs:
        typ, size = struct.unpack_from('<HH', r)
        ts = struct.unpack_from('<Q', r, 8)[0]
        slot = typ if 1 <= typ <= 8 else 9 + typ - 0x8001 if 0x8001 <= typ <= 0x8004 else 0
        t = tmpl.get(slot)
        if slot and t is not None and len(t) == size:
            pos += 1 + (size // 4 - 2 + 3) // 4
            d = zz(ts - prev, 64)
            pos += 1 if d < 1 << 8 else 2 if d < 1 << 16 else 4 if d < 1 << 32 else 8
            for i in [1] + list(range(4, size // 4)):
                z = zz(struct.unpack_from('<I', r, 4 * i)[0] - struct.unpack_from('<I', t, 4 * i)[0], 32)
                pos += 0 if z == 0 else 1 if z < 1 << 8 else 2 if z < 1 << 16 else 4
        else:
            pos += 1 + size
        if slot and size <= 256:
            tmpl[slot] = r
        prev = ts
        ends.append(pos)
    return ends

def irqs(recs):
    return sum(1 for r in recs if struct.unpack_from('<H', r)[0] == 1)

cmd = sys.argv[1]
if cmd == 'flip':
    # flip v1 chunked j: flip 4 bytes in the middle of chunk j; print its offset and the
    # expected records, interrupts and duration of the other chunks
    _, recs = v1_records(sys.argv[2])
    d = bytearray(open(sys.argv[3], 'rb').read())
    c = chunks(d)
    j = int(sys.argv[4])
    off, hsize, stored, nrec = c[j]
    at = off + hsize + stored // 2
    for k in range(4):
        d[at + k] ^= 0x5a
    open(sys.argv[3], 'wb').write(d)
    first = sum(x[3] for x in c[:j])
    kept = recs[:first] + recs[first + nrec:-1]
    start = struct.unpack_from('<Q', recs[0], 8)[0]
    hdr = open(sys.argv[2], 'rb').read()
    start_ns = struct.unpack_from('<Q', hdr, 32)[0]
    stop_ns = struct.unpack_from('<Q', recs[-1], 8)[0]
    print(off, nrec, len(kept), irqs(kept), '%.6f' % ((stop_ns - start_ns) / 1e9))
elif cmd == 'cut':
    # cut v1 chunked FRACTION: cut the file there; print where the cut is read to and the
    # records and interrupts of the whole records before it
    _, recs = v1_records(sys.argv[2])
    d = open(sys.argv[3], 'rb').read()
    c = chunks(d)
    n = int(len(d) * float(sys.argv[4]))
    open(sys.argv[3], 'wb').write(d[:n])
    first = 0
    for off, hsize, stored, nrec in c:
        if off + hsize + stored > n:
            break
        first += nrec
    ends = compact_ends(recs[first:first + nrec])
    have = n - off - hsize
    kept = sum(1 for e in ends if e <= have)
    at = off + hsize + ends[kept - 1] if kept else off
    print(at, first + kept, irqs(recs[:first + kept]))
elif cmd == 'json':
    t = json.load(open(sys.argv[2]))
    tr = t['trace']
    dmg = tr.get('damage') or [{}]
    print(int(tr.get('damaged', False)), dmg[0].get('offset', -1), dmg[0].get('records', -1),
          tr['records'], sum(x['irq_count'] for x in t['targets']), int(tr['complete']),
          tr['truncated_at'], '%.6f' % tr['duration_s'], int(tr.get('counts_are_lower_bounds', False)))
EOF

# flipped bytes in chunk 2 of 5 (compact, then zstd)
"$GEN" mix 100000 "$T/v1.trace" || fail "gentrace mix"
for enc in -1 3; do
	GENTRACE_ZSTD=$enc "$GEN" mix 100000 "$T/c.trace"
	read -r off nrec records irqs dur <<-END
	$(python3 "$T/model.py" flip "$T/v1.trace" "$T/c.trace" 1)
	END
	"$GPT" report --json "$T/c.trace" >"$T/r.json" 2>"$T/err"
	rc=$?
	got=$(python3 "$T/model.py" json "$T/r.json" 2>&1)
	check "level $enc, 4 bytes flipped in chunk 2: exit 0, damaged at offset $off ($nrec records), the other chunks' $records records and $irqs interrupts exact, duration $dur s, counts lower bounds" \
		[ "$rc.$got" = "0.1 $off $nrec $records $irqs 1 0 $dur 1" ]
	[ "$rc.$got" = "0.1 $off $nrec $records $irqs 1 0 $dur 1" ] || echo "    got: exit $rc: $got"
	check "level $enc, flipped: stderr names the chunk and its offset" \
		grep -q "damaged: chunk 2 at offset $off: its checksum fails" "$T/err"
	"$GPT" report "$T/c.trace" >"$T/r.txt" 2>/dev/null
	check "level $enc, flipped: the text report says DAMAGED and lower bound" \
		sh -c 'grep -q "DAMAGED: 1 chunk failed its checksum" "$1" && grep -q "every count below is a lower bound" "$1" && grep -q "at offset $2" "$1"' _ "$T/r.txt" "$off"
done

# a short recording (one chunk, as a 100 ms flush leaves it) cut at 67 % of its bytes
"$GEN" mix 1500 "$T/v1s.trace"
for frac in 0.67 0.5 0.9; do
	GENTRACE_ZSTD=-1 "$GEN" mix 1500 "$T/s.trace"
	read -r at records irqs <<-END
	$(python3 "$T/model.py" cut "$T/v1s.trace" "$T/s.trace" $frac)
	END
	"$GPT" report --json "$T/s.trace" >"$T/r.json" 2>"$T/err"
	rc=$?
	got=$(python3 "$T/model.py" json "$T/r.json" 2>&1 | cut -d' ' -f4-7)
	check "one compact chunk cut at $frac of its bytes: exit 0, incomplete, read to offset $at: $records records, $irqs interrupts" \
		[ "$rc.$got" = "0.$records $irqs 0 $at" ]
	[ "$rc.$got" = "0.$records $irqs 0 $at" ] || echo "    got: exit $rc: $got"
done
check "cut: stderr says incomplete, inside the chunk" grep -q "incomplete: the file ends inside chunk 1" "$T/err"

# every record type (gentrace fields-all: the newer ones too, adversarial
# values), one compact chunk cut: every whole record before the cut read
"$GEN" fields-all "$T/v1a.trace"
for frac in 0.3 0.61 0.95; do
	GENTRACE_ZSTD=-1 "$GEN" fields-all "$T/a.trace"
	read -r at records irqs <<-END
	$(python3 "$T/model.py" cut "$T/v1a.trace" "$T/a.trace" $frac)
	END
	"$GPT" report --json "$T/a.trace" >"$T/r.json" 2>"$T/err"
	rc=$?
	# the model counts every record, those of types the reader skips too
	got=$(python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["trace"]
print(t["records"] + t["unknown_records"], int(t["complete"]), t["truncated_at"])' "$T/r.json" 2>&1)
	check "every record type, one compact chunk cut at $frac of its bytes: exit 0, incomplete, read to offset $at: $records records (known and unknown types)" \
		[ "$rc.$got" = "0.$records 0 $at" ]
	[ "$rc.$got" = "0.$records 0 $at" ] || echo "    got: exit $rc: $got"
	"$GPT" report "$T/a.trace" >/dev/null 2>&1
	check "every record type, cut at $frac: the text report exits 0" [ $? -eq 0 ]
done
# ... and chunks of 50 records, 4 bytes flipped in the second (compact, zstd)
for enc in -1 3; do
	GENTRACE_ZSTD=$enc GENTRACE_CHUNK=50 "$GEN" fields-all "$T/a.trace"
	read -r off nrec records irqs dur <<-END
	$(python3 "$T/model.py" flip "$T/v1a.trace" "$T/a.trace" 1)
	END
	"$GPT" report --json "$T/a.trace" >"$T/r.json" 2>"$T/err"
	rc=$?
	got=$(python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["trace"]
print(int(t["damaged"]), t["damage"][0]["offset"], t["damage"][0]["records"],
      t["records"] + t["unknown_records"], int(t["complete"]))' "$T/r.json" 2>&1)
	check "every record type, level $enc, 4 bytes flipped in chunk 2: exit 0, damaged at offset $off ($nrec records), the other chunks' $records records exact" \
		[ "$rc.$got" = "0.1 $off $nrec $records 1" ]
	[ "$rc.$got" = "0.1 $off $nrec $records 1" ] || echo "    got: exit $rc: $got"
	"$GPT" report "$T/a.trace" >/dev/null 2>&1
	check "every record type, level $enc, flipped: the text report exits 0" [ $? -eq 0 ]
done

finish
