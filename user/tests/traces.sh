#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The committed traces of every format version the reader reads
# (tests/traces/README.md): the C reader's dump of every field must be, line
# for line, what tracedump.py (a decoder written from
# Documentation/trace-format.md alone) reads from the same bytes, and
# tracedump.py's counts and checksums must be the committed ones.
. "$(dirname "$0")/common.sh"
cd "$(dirname "$0")" || exit 2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# what differs, when it does: the first lines of the diff
same() {	# same NAME EXPECTED GOT
	cmp -s "$2" "$3" && return 0
	diff "$2" "$3" | head -6
	return 1
}

if ! python3 -c 'import zstandard' 2>/dev/null && ! command -v zstd >/dev/null; then
	fail "committed traces" "tracedump.py needs python3-zstandard or the zstd command (scripts/deps.sh)"
	finish
fi

python3 tracedump.py --summary traces/*.trace >"$T/summary.txt"
check "tracedump.py: counts and checksums of every committed trace as in traces/expected.txt" \
	same expected traces/expected.txt "$T/summary.txt"
check "committed: version 1, version 2 compact, version 2 zstd (with compact chunks among them)" \
	sh -c 'grep -q "format_version=1 " "$1" &&
	       grep -q "format_version=2 chunks_compact=[1-9][0-9]* chunks_zstd=0 " "$1" &&
	       grep -q "format_version=2 chunks_compact=[1-9][0-9]* chunks_zstd=[1-9]" "$1"' \
	_ traces/expected.txt
check "committed: every version 2 and 3 file uses every length code of the compact encoding" \
	sh -c '[ "$(grep -c "length codes used: ts0 ts1 ts2 ts3 word0 word1 word2 word3$" "$1")" -eq \
		 "$(grep -cE "format_version=[23] " "$1")" ]' _ traces/expected.txt
check "committed: version 3, compact and zstd, is among them" \
	sh -c 'grep -q "format_version=3 chunks_compact=[1-9][0-9]* chunks_zstd=0 " "$1" &&
	       grep -q "format_version=3 chunks_compact=0 chunks_zstd=[1-9]" "$1"' _ traces/expected.txt
# a byte flipped inside a version 3 chunk's data: the independent decoder's
# check (xxhsum) and the C reader both see it
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[len(b) // 2] ^= 0x40
open(sys.argv[2], "wb").write(b)' traces/v3-compact.trace "$T/flipped.trace"
check "version 3, a flipped byte: tracedump.py's xxhsum check fails" \
	sh -c '! python3 tracedump.py "$1" >/dev/null 2>"$2" && grep -q "check fails" "$2"' _ "$T/flipped.trace" "$T/py.err"
check "version 3, a flipped byte: report says the file is damaged" \
	sh -c '"$1" report "$2" 2>&1 | grep -q "DAMAGED"' _ "$GPT" "$T/flipped.trace"

for f in traces/*.trace; do
	n=$(basename "$f")
	./gentrace dump "$f" >"$T/$n.c" 2>"$T/$n.err"
	check "$n: the C reader reads it whole (exit 0, nothing on stderr)" \
		sh -c '[ "$1" -eq 0 ] && [ ! -s "$2" ]' _ $? "$T/$n.err"
	python3 tracedump.py "$f" >"$T/$n.py"
	check "$n: every field of every record as tracedump.py decodes it, line for line" \
		same "$n" "$T/$n.py" "$T/$n.c"
	sum=$(sha256sum <"$T/$n.c" | cut -d' ' -f1)
	check "$n: the C dump's sha256 is the committed one" \
		grep -qx "$n sha256=$sum" traces/expected.txt
done

# A compact chunk made by hand from trace-format.md, its values worked out here:
# an interrupt as it is, then one coded against it (tag 1; codes, four to a byte
# from the lowest bits: ts 0, word 1 1, bdf 0, irq 1 | vector 0, reserved 0,
# duration low 2, high 0 -> 0x44 0x20; then ts -10 -> zigzag 19, cpu +1 -> 2,
# irq +1 -> 2, duration +300 -> 600 = 0x0258), then the end record as it is.
python3 -c '
import struct, sys
irq = struct.pack("<HHHHQIIIIQ", 1, 40, 3, 1, 1000, 0x100, 100, 0, 0, 500)
end = struct.pack("<HHHHQQiI", 0x8002, 32, 0, 0, 2000, 2, 0, 0)
enc = b"\0" + irq + bytes([1, 0x44, 0x20, 19, 2, 2, 0x58, 0x02]) + b"\0" + end
hdr = struct.pack("<8sIIIIIIQQ64s72s24sII24x", b"GPUPROBE", 2, 240, 1, 1, 3, 0, 0, 0,
                  b"hand", b"", b"", 0, 0)
chunk = struct.pack("<4sIIIII", b"GPCK", 1, len(enc), 40 + 40 + 32, 3, len(enc))
open(sys.argv[1], "wb").write(hdr + chunk + enc)' "$T/hand.trace"
./gentrace dump "$T/hand.trace" >"$T/hand.c" 2>&1
check "hand-made compact chunk: the coded record has the values worked out by hand" \
	grep -qx "record irq type=1 size=40 cpu=4 flags=1 ts=990 bdf=256 irq=101 vector=0 reserved=0 duration_ns=800" \
	"$T/hand.c"
python3 tracedump.py "$T/hand.trace" >"$T/hand.py"
check "hand-made compact chunk: tracedump.py reads what the C reader does" same hand "$T/hand.c" "$T/hand.py"

# Every record type, the ones the committed traces lack too (IOMMU part 10,
# command 0x800a, delivery 0x800b, string 0x800c, TSC 0x800d, IOMMU mode
# 0x800e): `gentrace fields-all` (tests/synth_fields.c) in every encoding,
# the C reader's dump of every field is tracedump.py's; each type's number
# and size pinned here; the record table of Documentation/trace-format.md
# against the headers' numbers and the structs' sizes (compiled here).
./gentrace fields-all "$T/all-v1.trace" &&
	GENTRACE_ZSTD=-1 GENTRACE_CHUNK=50 ./gentrace fields-all "$T/all-compact.trace" &&
	GENTRACE_ZSTD=3 GENTRACE_CHUNK=40 ./gentrace fields-all "$T/all-zstd.trace"
check "gentrace fields-all writes every record type in version 1, compact and zstd" [ $? -eq 0 ]
for e in v1 compact zstd; do
	./gentrace dump "$T/all-$e.trace" >"$T/all-$e.c" 2>&1
	python3 tracedump.py "$T/all-$e.trace" >"$T/all-$e.py" 2>&1
	check "every record type, $e: every field of every record as tracedump.py decodes it, line for line" \
		same "all-$e" "$T/all-$e.py" "$T/all-$e.c"
done
for pin in "irq type=1 size=40" "lost type=2 size=24" "target type=3 size=32" "wakeup type=4 size=32" \
	   "switch type=5 size=32" "dma type=6 size=64" "iommu type=7 size=56" "iommu type=7 size=64" \
	   "swiotlb type=8 size=32" "iommu_part type=10 size=56" "workload type=32778 size=" "delivery type=32779 size=80" \
	   "string type=32780 size=" "tsc type=32781 size=96" "iommu_mode type=32782 size=64" \
	   "iommu_mode type=32782 size=72" "irq_count type=32769 size=40" "app type=32771 size=152" \
	   "vector type=32772 size=32" "kvm type=32773 size=56" "machine type=32774 size=" \
	   "guest type=32775 size=" "clock_sync type=32776 size=56"; do
	check "every record type: '$pin' (number and size pinned)" grep -q "^record $pin" "$T/all-v1.py"
done
# export --csv of the committed version 1 trace and of every record type:
# each row against tracedump.py's record, column by column as
# Documentation/csv-export.md maps them (csv_check.py, python's csv module)
for f in traces/v1.trace "$T/all-v1.trace"; do
	n=$(basename "$f" .trace)
	"$GPT" export "$f" --csv "$T/$n.csv" >/dev/null 2>"$T/$n.csv.err" &&
		python3 tracedump.py "$f" >"$T/$n.dump" &&
		python3 csv_check.py "$T/$n.dump" "$T/$n.csv" >"$T/$n.csvcheck" 2>&1
	check "$n: export --csv, every column of every row as the record tracedump.py reads says" [ $? -eq 0 ]
	sed 's/^/    /' "$T/$n.csvcheck" 2>/dev/null
done
# --perfetto of the same version 1 trace: its guest wrappers (machine 1 and
# 4294967295) come with no clock fit, so no passthrough view: the guest's
# records are left out, and every host interrupt is one complete event on
# the CPU tracks (the count from tracedump.py's dump)
"$GPT" export traces/v1.trace --perfetto "$T/v1.json" >/dev/null 2>"$T/v1.json.err"
rc=$?
python3 - "$T/v1.json" "$T/v1.dump" >"$T/v1.pcheck" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["traceEvents"]
want = sum(1 for line in open(sys.argv[2]) if line.startswith("record irq "))
guests = sum(1 for line in open(sys.argv[2]) if line.startswith("record guest "))
procs = {e["pid"]: e["args"]["name"] for e in d if e.get("name") == "process_name"}
got = sum(1 for e in d if e.get("ph") == "X" and e.get("cat") == "irq" and procs.get(e["pid"]) == "CPUs")
print("    interrupts on the CPU tracks: %d, host irq records: %d (guest wrappers: %d)" % (got, want, guests))
sys.exit(0 if got == want and want > 0 and guests > 0 else 1)
PY
check "v1: export --perfetto with guest records and no passthrough view: exit 0, the guest's left out, every host interrupt once on its CPU" \
	sh -c '[ "$1" -eq 0 ] && [ "$2" -eq 0 ]' _ "$rc" $?
cat "$T/v1.pcheck"
check "every record type: a string record of the longest text kept (16384 bytes: 32 + 16384 + NUL, to 8)" \
	grep -q "^record string type=32780 size=16424 .* len=16384 " "$T/all-v1.py"

cat >"$T/types.py" <<'EOF'
# The record table of trace-format.md against the headers (numbers, struct
# names) and the compiled structs' sizes; tracedump.py's smallest sizes
# against the C reader's.
import re, subprocess, sys
doc, tfh, uapi, cc, outdir = sys.argv[1:6]
sys.path.insert(0, '.')
import tracedump

hdr = open(tfh).read()
enum = {int(n, 16): (name, st) for name, n, st in
        re.findall(r'TRACEFILE_REC_(\w+) = (0x[0-9a-f]+),\s*/\* struct (\w+)', hdr)}
body = re.search(r'enum gpuprobe_event_type \{(.*?)\};', open(uapi).read(), re.S).group(1)
ev, n = {}, 0
for line in body.splitlines():
    m = re.match(r'\s*GPUPROBE_EV_(\w+),\s*(?:/\* struct (\w+))?', line)
    if m and not m.group(1).startswith('_'):
        ev[n] = (m.group(1), m.group(2))
        n += 1
text = open(doc).read()
rows = {}
for num, what in re.findall(r'^\| (0x[0-9a-f]{4}) \| (.*?) \|', text, re.M):
    m = re.match(r'`(\w+)` \((\d+) bytes', what)
    rows[int(num, 16)] = (m.group(1), int(m.group(2))) if m else None
prose = [(int(t), name, int(size)) for t, name, size in
         re.findall(r'\(type (\d+), `GPUPROBE_EV_(\w+)`, (\d+)\s+bytes', text)]
structs = sorted({st for _, st in enum.values()} | {st for _, st in ev.values() if st})
src = '#include <stdio.h>\n#include "tracefile.h"\n#include "iommu_mode.h"\nint main(void)\n{\n'
src += ''.join('\tprintf("%%s %%zu\\n", "%s", sizeof(struct %s));\n' % (s, s) for s in structs)
src += '\tfor (unsigned int t = 1; t < 65536; t++)\n\t\tif (tracefile_record_min_size((uint16_t)t))\n'
src += '\t\t\tprintf("min %u %zu\\n", t, tracefile_record_min_size((uint16_t)t));\n\treturn 0;\n}\n'
open(outdir + '/sizes.c', 'w').write(src)
subprocess.check_call(cc.split() + ['-I../lib', '-I../../include/uapi', '-I../../inject',
                      '-o', outdir + '/sizes', outdir + '/sizes.c'])
size, cmin = {}, {}
for line in subprocess.check_output([outdir + '/sizes'], text=True).splitlines():
    a, b, c = (line.split() + [''])[:3]
    if a == 'min':
        cmin[int(b)] = int(c)
    else:
        size[a] = int(b)
bad = []
documented = {t for t, r in rows.items() if r}
if documented != set(enum):
    bad.append('table types %s, tracefile.h %s' % (sorted(map(hex, documented)), sorted(map(hex, enum))))
for t, r in sorted(rows.items()):
    if not r:
        if t in enum:
            bad.append('0x%x: "none" in the table, %s in tracefile.h' % (t, enum[t][0]))
        continue
    st, nbytes = r
    if t in enum and enum[t][1] != st:
        bad.append('0x%x: the table says %s, tracefile.h %s' % (t, st, enum[t][1]))
    if size.get(st) != nbytes:
        bad.append('0x%x: the table says %s is %d bytes, sizeof %s' % (t, st, nbytes, size.get(st)))
if not prose:
    bad.append('no "(type N, `GPUPROBE_EV_X`, N bytes" in the document')
for t, name, nbytes in prose:
    if ev.get(t, (None,))[0] != name:
        bad.append('type %d: the document says GPUPROBE_EV_%s, the uapi enum %s' % (t, name, ev.get(t)))
    elif size.get(ev[t][1]) != nbytes:
        bad.append('type %d: the document says %d bytes, sizeof %s' % (t, nbytes, size.get(ev[t][1])))
pymin = {t: v[1] for t, v in tracedump.TYPES.items()}
if pymin != cmin:
    bad.append('smallest sizes: tracedump.py %s, the C reader %s' %
               (sorted((hex(t), s) for t, s in set(pymin.items()) - set(cmin.items())),
                sorted((hex(t), s) for t, s in set(cmin.items()) - set(pymin.items()))))
print('\n'.join(bad) if bad else 'agree: %d table rows, %d uapi types, %d sizes' % (len(rows), len(ev), len(size)))
sys.exit(1 if bad else 0)
EOF
python3 "$T/types.py" ../../Documentation/trace-format.md ../lib/tracefile.h \
	../../include/uapi/linux/gpuprobe.h "${CC:-cc}" "$T" >"$T/types.out" 2>&1
check "trace-format.md's record table: every type number, struct and size as the headers and the compiled structs say; tracedump.py's smallest sizes the C reader's" \
	[ $? -eq 0 ]
sed 's/^/    /' "$T/types.out"
finish
