#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `explain` on the committed H200 run (probe-traced.json + probe.trace, the
# CUDA probes under `record --source tracefs`): exact attribution counts,
# causality (no violation in the real run), the committed explain.txt reproduced, and `compare` of two
# explained files showing the components side by side.
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

(cd "$RUN" && "$GPT" explain probe-traced.json probe.trace) >"$T/explain.txt"
check "H200: explain exits 0 (causality holds in every wait)" [ $? -eq 0 ]
check "H200: committed explain.txt is what explain prints" cmp -s "$T/explain.txt" "$RUN/explain.txt"

(cd "$RUN" && "$GPT" explain probe-traced.json probe.trace --json) >"$T/explain.json"
check "H200: exact classes, matched counts, causality and the clock bound" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['target'] == '0000:00:06.0' and d['tid'] == 520 and d['causality_violations'] == 0, d['target']
assert abs(d['clock_error_bound_ns'] - 3670) < 10, d['clock_error_bound_ns']
f = {w['probe']: w for w in d['apis'][0]['waterfalls']}
e, h = f['sync_wake'], f['sync_wake_100us']
assert e['samples'] == 100 and e['classes'] == {'interrupt': 45, 'coalesced': 49, 'not_asleep': 3, 'other_waker': 3}, e['classes']
assert h['samples'] == 50 and h['matched'] == 50 and h['woken_inside_handler'] == 46, h['classes']
for w in (e, h):
    c = w['causality']
    assert c['violations'] == 0 and c['return_before_gpu_end'] == 0 and c['worst_ns'] == 0, c
    assert 'closes' not in w and 'sum_p50' not in w, 'the tautological closure is gone'
assert e['causality']['irq_entry_within_bound'] == 7 and h['causality']['irq_entry_within_bound'] == 0
assert abs(h['steps']['gpu_end_to_irq_entry']['p50'] - 7458) < 1000, h['steps']
" "$T/explain.json"

(cd "$RUN" && "$GPT" explain probe-traced.json probe.trace -o "$T/merged.json") >/dev/null
check "-o: the probe output with an explain member, probes unchanged" python3 -c "
import json, sys
m, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert m['explain']['components'] and {k: v for k, v in m.items() if k != 'explain'} == p
" "$T/merged.json" "$RUN/probe-traced.json"
"$GPT" explain "$T/merged.json" "$RUN/probe.trace" -o "$T/twice.json" >/dev/null 2>"$T/err.txt"
check "-o refuses a file that already holds an explain member" sh -c \
	'[ $1 -eq 1 ] && grep -q "already holds" "$2"' _ $? "$T/err.txt"
out=$("$GPT" compare "$T/merged.json" "$T/merged.json")
check "compare shows the attributed components side by side" sh -c \
	'printf "%s\n" "$1" | grep -q "attributed components" &&
	 printf "%s\n" "$1" | grep -q "sync_wake_100us.gpu_end_to_irq_entry.p50 .* 100.0%"' _ "$out"
check "compare --json: components with percent" sh -c \
	'"$1" compare "$2" "$2" --json | python3 -c "
import json, sys
c = json.load(sys.stdin)[\"components\"]
assert c and all(r[\"percent\"] == 100 for r in c if r[\"base\"]), c[:2]
"' _ "$GPT" "$T/merged.json"
out=$("$GPT" compare "$RUN/probe.json" "$RUN/probe-traced.json")
check "compare without explain sections: no components table" sh -c \
	'! printf "%s\n" "$1" | grep -q "attributed components"' _ "$out"

finish
