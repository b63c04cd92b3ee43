#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The module's delivery in the trace (issue 30): a delivery record (type
# 0x800b, struct tracefile_rec_delivery: Documentation/trace-format.md) put
# by hand before the end record of a version 1 trace, with values chosen
# here; report (text, --json) and both dumps (the C reader, tracedump.py)
# must give those values back.
. "$(dirname "$0")/common.sh"
D=$(dirname "$0")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$D/gentrace" known "$T/known.trace"
python3 - "$T/known.trace" "$T/d.trace" <<'PY'
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
# hdr: type, size 80, cpu 0, flags 0, ts; then the fields in their order
rec = struct.pack("<HHHHQIIQQQQQQiI", 0x800B, 80, 0, 0, 123456789,
                  8192, 1, 2052, 342000000, 3, 7, 5, 2, 33554432, 0)
assert len(rec) == 80
end = bytearray(b[last:])               # the end record counts the records before it
struct.pack_into("<Q", end, 16, struct.unpack_from("<Q", end, 16)[0] + 1)
open(sys.argv[2], "wb").write(b[:last] + rec + bytes(end))
PY
"$GPT" report "$T/d.trace" >"$T/r.txt" 2>&1
rc=$?
check "report of a trace with a delivery record: exit 0, the module's delivery as written" \
	sh -c '[ "$1" -eq 0 ] && grep -q "module delivery: fullest ring 2052 of 8192 records (CPU 1), longest wait for the drain 342.0 ms; 3 dropped by the rings, 7 undelivered (5 by a full socket), 2 socket overflows read, receive buffer 33554432 bytes" "$2"' \
	_ "$rc" "$T/r.txt"
check "report --json: the delivery object as written" sh -c \
	'"$1" report --json "$2" | python3 -c "
import json, sys
d = json.load(sys.stdin)[\"delivery\"]
want = dict(ring_slots=8192, high_water=2052, high_water_cpu=1, wait_max_ns=342000000,
            ring_dropped=3, undelivered=7, socket_overrun=5, socket_overflows_read=2, rcvbuf=33554432)
assert d == want, d"' _ "$GPT" "$T/d.trace"
"$GPT" report --json "$T/known.trace" >"$T/k.json"
check "report --json of a trace without one: no delivery object" \
	python3 -c 'import json, sys; assert "delivery" not in json.load(open(sys.argv[1]))' "$T/k.json"
"$D/gentrace" dump "$T/d.trace" >"$T/c.txt" 2>&1
python3 "$D/tracedump.py" "$T/d.trace" >"$T/py.txt" 2>&1
check "the C reader's dump of the delivery record is tracedump.py's, line for line" \
	sh -c 'cmp -s "$1" "$2" && grep -q "^record delivery type=32779 size=80 .* high_water=2052 wait_max_ns=342000000 " "$2"' _ "$T/c.txt" "$T/py.txt"
finish
