#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Whole kernel names (issue 24): `gentrace names` (tests/synth_names.c) puts
# kernels named with thousands of characters through record's merge; the
# expectations are written here: the names as Python builds them, demangled
# by the Itanium rules by hand, and FNV-1a computed here.  tracedump.py must
# decode the string records (text and hash), the C reader's dump must be
# its, report --json must give each name whole (demangled), Perfetto (JSON
# and protobuf) whole, the text table abbreviated; a name whose pieces did
# not all arrive stays in its short form.
. "$(dirname "$0")/common.sh"
D=$(dirname "$0")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
GPT=$D/../gpuprobe-trace

"$D/gentrace" names "$T/n.trace" 2>"$T/gen.err"
check "gentrace names writes the trace" [ $? -eq 0 ]
check "record's merge says the name missing a piece stays short" \
	grep -q "1 long names incomplete and 0 pieces malformed" "$T/gen.err"

python3 "$D/tracedump.py" "$T/n.trace" >"$T/dump.py" 2>&1
"$D/gentrace" dump "$T/n.trace" >"$T/dump.c" 2>&1
check "the C reader's dump is tracedump.py's, line for line" cmp -s "$T/dump.c" "$T/dump.py"
check "tracedump.py: two string records, each text and FNV-1a hash as built here; the cut one flagged" \
	python3 - "$T/dump.py" <<'PY'
import sys
def fnv(b):
    h = 0xcbf29ce484222325
    for c in b:
        h = ((h ^ c) * 0x100000001b3) & (2**64 - 1)
    return h
long_ = b"_ZN" + b"4abcd" * 50 + b"1fI" + b"i" * 600 + b"EEvv"
huge = b"x" * 20000
want = {fnv(long_): (long_, 0), fnv(huge): (huge[:16384], 1)}
got = {}
for line in open(sys.argv[1]):
    if not line.startswith("record string "):
        continue
    f = dict(kv.split("=", 1) for kv in line.split()[2:] if "=" in kv)   # the record's flags last
    got[int(f["hash"])] = (bytes.fromhex(f["text"]), int(f["flags"]), int(f["len"]))
assert set(got) == set(want), (sorted(got), sorted(want))
for h, (text, flags) in want.items():
    assert got[h][0] == text and got[h][1] == flags and got[h][2] == len(text), h
PY

"$GPT" report --json "$T/n.trace" >"$T/r.json" 2>/dev/null
check "report --json: every name whole and demangled, the mangled one kept, the incomplete one short" \
	python3 - "$T/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
long_ = "_ZN" + "4abcd" * 50 + "1fI" + "i" * 600 + "EEvv"
demangled = "void " + "abcd::" * 50 + "f<" + ", ".join(["int"] * 600) + ">()"
names = {n["name"]: n for n in d["app"]["names"]}
assert len(demangled) == 3308
assert demangled in names and names[demangled]["mangled"] == long_, list(names)[:2]
assert "x" * 16384 in names
short = [n for n in names if n.startswith("lost_")]
assert len(short) == 1 and len(short[0]) == 63 and "~" in short[0], short
assert "short_kernel" in names
ops = [o["name"] for o in d["app"]["ops"]]
assert demangled in ops and "x" * 16384 in ops, [o[:20] for o in ops]
PY

"$GPT" report "$T/n.trace" >"$T/r.txt" 2>/dev/null
check "report text: the long name abbreviated to its column, not whole" sh -c \
	"grep -q '^    cuda   kernel void abcd::abcd::.*\\.\\.\\. x1 ' '$T/r.txt' && ! grep -q 'int, int, int, int' '$T/r.txt'"

"$GPT" export "$T/n.trace" --perfetto "$T/p.json" --perfetto-proto "$T/p.pftrace" 2>/dev/null
check "Perfetto JSON: the kernels' names whole, as CUPTI gave them" python3 - "$T/p.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
names = {e.get("name") for e in ev if e.get("cat") == "kernel"}
long_ = "_ZN" + "4abcd" * 50 + "1fI" + "i" * 600 + "EEvv"
assert long_ in names and "x" * 16384 in names, sorted(n[:20] for n in names)
PY
check "Perfetto protobuf: the demangled name whole in the file" python3 - "$T/p.pftrace" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
assert ("void " + "abcd::" * 50 + "f<" + ", ".join(["int"] * 600) + ">()").encode() in b
PY

# the same through format 3's compact chunks and zstd: the string records are the largest records
for level in -1 3; do
	GENTRACE_ZSTD=$level "$D/gentrace" names "$T/z.trace" 2>/dev/null
	"$GPT" report --json "$T/z.trace" >"$T/z.json" 2>/dev/null
	check "format 3 (GENTRACE_ZSTD=$level): the same names whole" python3 - "$T/z.json" "$T/r.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["trace"]["format_version"] == 3
assert [n["name"] for n in a["app"]["names"]] == [n["name"] for n in b["app"]["names"]]
PY
done
finish
