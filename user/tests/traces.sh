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
finish
