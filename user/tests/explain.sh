#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `explain` on the committed H200 run (probe-traced.json + probe.trace, the
# CUDA probes under `record --source tracefs`): its classes, counts, causality
# and first step against explain_check.py's (which reads the files without
# the tool), and `compare` of two explained files whose components differ by
# a known factor.
. "$(dirname "$0")/common.sh"
RUN=$(cd "$(dirname "$0")/../../Documentation/results/h200-2026-11-29" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

out=$("$GPT" explain --help 2>&1)
rc=$?
check "explain --help exits 0 with EXAMPLES" \
	sh -c '[ "$1" -eq 0 ] && printf "%s" "$2" | grep -q EXAMPLES' _ "$rc" "$out"
"$GPT" explain "$RUN/probe-traced.json" >/dev/null 2>&1
check "explain with one file: exit 2" [ $? -eq 2 ]
"$GPT" explain "$RUN/probe-traced.json" "$T/none.trace" >/dev/null 2>"$T/err.txt"
check "explain with a missing trace: exit 1, names it" sh -c \
	'[ $1 -eq 1 ] && grep -q "none.trace" "$2"' _ $? "$T/err.txt"

# a trace that cannot be read past a record: its sixth record's size made 3
# (lib/tracefile.h: after the header, u16 type, u16 size per record)
off=$(python3 -c "
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off = struct.unpack_from('<I', d, 12)[0]
for _ in range(5):
    off += struct.unpack_from('<H', d, off + 2)[0]
struct.pack_into('<H', d, off + 2, 3)
open(sys.argv[2], 'wb').write(d)
print(off)" "$RUN/probe.trace" "$T/bad.trace")
"$GPT" explain "$RUN/probe-traced.json" "$T/bad.trace" >/dev/null 2>"$T/err.txt"
check "explain with a trace corrupt at offset $off: exit 1, says where and what" sh -c \
	'[ $1 -eq 1 ] && grep -q "corrupt record at offset $2: size 3" "$3"' _ $? "$off" "$T/err.txt"

# the expectations: the trace and the probe output read without the tool
# (the probe's waits ran on its main thread, pid 520; 0000:00:06.0 is 0x30)
python3 "$(dirname "$0")/explain_check.py" "$RUN/probe-traced.json" "$RUN/probe.trace" 520 0x30 >"$T/want.json"
check "explain_check.py reads the H200 run" [ $? -eq 0 ]
(cd "$RUN" && "$GPT" explain probe-traced.json probe.trace) >"$T/explain.txt"
check "H200: explain exits 0 (causality holds in every wait)" [ $? -eq 0 ]
check "H200: the text's handler, wake-up and class counts are explain_check.py's" python3 -c "
import json, sys
w, text = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
e, h = w['sync_wake'], w['sync_wake_100us']
c = lambda o, k: o['classes'].get(k, 0)
lines = [f\"{w['handlers']} interrupt handlers\", f\"{w['wakeups']} wake-ups\",
         f\"matched {c(e, 'interrupt')} of {e['samples']}:\",
         f\"{c(e, 'coalesced')} by a handler already running\",
         f\"{c(e, 'not_asleep')} not asleep\", f\"{c(e, 'other_waker')} woken by something else\",
         f\"in {e['woken_inside_handler']} of {c(e, 'interrupt')} waits\",
         f\"matched {c(h, 'interrupt')} of {h['samples']}:\",
         f\"in {h['woken_inside_handler']} of {c(h, 'interrupt')} waits\"]
flat = ' '.join(text.split())
missing = [l for l in lines if l not in flat]
assert not missing, missing
" "$T/want.json" "$T/explain.txt"

(cd "$RUN" && "$GPT" explain probe-traced.json probe.trace --json) >"$T/explain.json"
check "H200: classes, causality, entries within the bound and the first step's and handler's p50 (and its component) are explain_check.py's" python3 -c "
import json, sys
d, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert d['target'] == '0000:00:06.0' and d['tid'] == 520, d['target']
cal = json.load(open(sys.argv[3]))['apis'][0]['clock_calibration']['error_bound_ns']
assert abs(d['clock_error_bound_ns'] - cal) <= 0.5, (d['clock_error_bound_ns'], cal)
f = {w['probe']: w for w in d['apis'][0]['waterfalls']}
assert sorted(f) == sorted(k for k in want if k.startswith('sync_wake')), sorted(f)
for name, w in f.items():
    o = want[name]
    classes = {k: v for k, v in w['classes'].items() if v}
    assert w['samples'] == o['samples'] and classes == o['classes'], (name, w['classes'], o)
    assert w['matched'] == o['classes'].get('interrupt', 0), (name, w['matched'])
    assert w['woken_inside_handler'] == o['woken_inside_handler'], (name, w['woken_inside_handler'], o)
    c = w['causality']
    assert c['violations'] == o['violations'] and c['irq_entry_within_bound'] == o['irq_entry_within_bound'], (name, c, o)
    assert w['steps']['gpu_end_to_irq_entry']['p50'] == o['end_to_entry_p50'], (name, w['steps'], o)
    assert w['handler']['p50'] == o['handler_p50'], (name, w['handler'], o)
    comp = {c['name']: c['value'] for c in d['components']}
    assert comp[name + '.handler.p50'] == o['handler_p50'], (name, o['handler_p50'])
    assert 'closes' not in w and 'sum_p50' not in w, 'the tautological closure is gone'
" "$T/explain.json" "$T/want.json" "$RUN/probe-traced.json"

check "H200 (a probe output without windows): its pin and copy_sweep phases, each one window of the phase's length" python3 -c "
import json, sys
a, p = json.load(open(sys.argv[1]))['apis'][0], json.load(open(sys.argv[2]))['apis'][0]
ph = {x['name']: x['end_ns'] - x['start_ns'] for x in p['phases']}
assert a['windows'] == [], a['windows']
for key, name in (('pin_phase', 'pin'), ('copy_phase', 'copy_sweep')):
    l = a[key]
    assert l['probe'] == name and l['windows'] == 1 and l['window_ns'] == ph[name], (key, l, ph[name])
" "$T/explain.json" "$RUN/probe-traced.json"

(cd "$RUN" && "$GPT" explain probe-traced.json probe.trace -o "$T/merged.json") >/dev/null
check "-o: the probe output with an explain member, probes unchanged" python3 -c "
import json, sys
m, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert m['explain']['components'] and {k: v for k, v in m.items() if k != 'explain'} == p
" "$T/merged.json" "$RUN/probe-traced.json"
"$GPT" explain "$T/merged.json" "$RUN/probe.trace" -o "$T/twice.json" >/dev/null 2>"$T/err.txt"
check "-o refuses a file that already holds an explain member" sh -c \
	'[ $1 -eq 1 ] && grep -q "already holds" "$2"' _ $? "$T/err.txt"
# the run: every other component doubled, so RUN % of BASE is 200 there, 100 elsewhere
python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))
for i, c in enumerate(m['explain']['components']):
    c['value'] *= 2 if i % 2 == 0 else 1
json.dump(m, open(sys.argv[2], 'w'))
" "$T/merged.json" "$T/doubled.json"
first=$(python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))['explain']['components'][0]
print(c['name'], c['value'], 2 * c['value'])" "$T/merged.json")
set -- $first
out=$("$GPT" compare "$T/merged.json" "$T/doubled.json")
check "compare shows the attributed components side by side: the first, $1, $2 -> $3, 200.0%" sh -c \
	'printf "%s\n" "$1" | grep -q "attributed components" &&
	 printf "%s\n" "$1" | grep -Eq "^ *$2 +$3 +$4 +200\.0%"' _ "$out" "$1" "$2" "$3"
check "compare --json: components 200 % where doubled, 100 % where kept" sh -c \
	'"$1" compare "$2" "$3" --json | python3 -c "
import json, sys
c = json.load(sys.stdin)[\"components\"]
base = json.load(open(sys.argv[1]))[\"explain\"][\"components\"]
want = {b[\"name\"]: 200 if i % 2 == 0 else 100 for i, b in enumerate(base) if b[\"value\"]}
got = {r[\"name\"]: r[\"percent\"] for r in c if r[\"base\"]}
assert got == want, (got, want)
" "$2"' _ "$GPT" "$T/merged.json" "$T/doubled.json"
out=$("$GPT" compare "$RUN/probe.json" "$RUN/probe-traced.json")
check "compare without explain sections: no components table" sh -c \
	'! printf "%s\n" "$1" | grep -q "attributed components"' _ "$out"

finish
