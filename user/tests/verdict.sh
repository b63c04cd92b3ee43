#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `report` opens with the verdict: the workload, the wall time and the
# passthrough-sensitive time as shares of it, largest first, then what was
# not measured.  The expected numbers are worked out here from the
# generators' parameters (tests/synth.h: synth_write_verdict, and
# synth_merged.c's constants), never read back from the tool.  Idle vectors
# and all-zero phase rows are folded unless -v; --json has the same verdict.
cd "$(dirname "$0")" || exit 2
. ./common.sh
GEN=./gentrace
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$GEN" verdict "$T/v.trace" || { fail "gentrace verdict"; finish; }
"$GPT" report "$T/v.trace" >"$T/v.txt" 2>"$T/v.err"
rc=$?
"$GPT" report -v "$T/v.trace" >"$T/vv.txt" 2>&1
check "report -v exits 0" [ $? -eq 0 ]
"$GPT" report --json "$T/v.trace" >"$T/v.json" 2>&1

# rows of the verdict block: "share|time|what", in the order printed
rows() {
	awk -F '  +' '/^verdict$/ { on = 1; next } on && /^$/ { exit }
		on && /^ +[0-9]+\.[0-9][0-9]% +[0-9]/ { print $2 "|" $3 "|" $4 }' "$1"
}

check "the report opens with the verdict, before the trace's own lines" sh -c \
	"[ $rc -eq 0 ] && [ \"\$(head -n 1 '$T/v.txt')\" = verdict ] &&
	 [ \$(grep -n '^  wall time:' '$T/v.txt' | cut -d: -f1) -lt \$(grep -n '^trace ' '$T/v.txt' | cut -d: -f1) ]"
check "wall time: 100 ms, the recording's, named as the denominator" \
	grep -q '^  wall time: 0\.100 s (the recording); every share below is of it$' "$T/v.txt"
check "workload: its exit status and the CUDA process" \
	grep -q '^  workload: exit status 0, CUDA/OpenCL in pid 5150 .*command line is not in the trace' "$T/v.txt"

# By hand, of 100 ms:
#   mapping  = 100 x 30 us + 100 x 5 us (DMA calls) + 100 x 12 us + 20 x 40 us (IOMMU)
#              - 100 x 12 us (the IOMMU time inside the DMA calls) = 4.3 ms = 4.30 %
#   handlers = 200 x 10 us + 50 x 4 us = 2.2 ms = 2.20 %
#   the wait: kernel end +81 ms -> call return +81.4 ms = 400 us = 0.40 %
rows "$T/v.txt" >"$T/rows"
printf '%s\n' '4.30%|4.30ms|DMA/IOMMU mapping' '2.20%|2.20ms|interrupt handlers' \
	'0.40%|400.00us|waits that saw an interrupt' >"$T/want"
check "shares of wall as worked by hand, largest first" cmp -s "$T/rows" "$T/want"
[ "$FAILED" -eq 0 ] || { echo "got:"; cat "$T/rows"; }
check "the largest named" grep -q '^  largest: DMA/IOMMU mapping, 4\.30% of wall (4\.30ms)$' "$T/v.txt"
check "the body prints the totals the verdict adds (2.00ms + 200.00us; 3.00ms + 500.00us; IOMMU 2.00ms)" sh -c \
	"grep -q 'handler time .* total 2\.00ms\$' '$T/v.txt' && grep -q 'handler time .* total 200\.00us\$' '$T/v.txt' &&
	 grep -q 'latency .* total 3\.00ms\$' '$T/v.txt' && grep -q 'latency .* total 500\.00us\$' '$T/v.txt' &&
	 grep -q '^  IOMMU map   120 calls, 573440 bytes, 2\.00ms\$' '$T/v.txt' &&
	 grep -q 'interrupt path: 400\.00us in 1 waits .* = 0\.40% of wall' '$T/v.txt'"
check "not measured: bounce time (3 bounces), the host -> guest crossing, tracing's cost" sh -c \
	"sed -n '/^  not measured:/,/^\$/p' '$T/v.txt' >'$T/nm' &&
	 grep -q '^    swiotlb bounces: 3 bounces (1536 bytes) recorded, their time not' '$T/nm' &&
	 grep -q '^    host -> guest crossing: a single machine' '$T/nm' &&
	 grep -q \"^    tracing's own cost: \" '$T/nm' && ! grep -q 'IOMMU work' '$T/nm'"

# folding: vectors 1, 2, 4, 5, 6 idle; 7 has none recorded but 2 counted by the kernel
check "5 idle vectors folded into one line, the mismatching one kept" sh -c \
	"[ \$(grep -c 'idle vector' '$T/v.txt') -eq 1 ] &&
	 grep -q '^    5 idle vectors (1-2, 4-6): 0 irqs, .*-v lists them\$' '$T/v.txt' &&
	 ! grep -q 'vector [12456] (irq' '$T/v.txt' &&
	 grep -q 'kernel counted 2 (/proc/interrupts delta), trace holds 0 in the same window: MISMATCH' '$T/v.txt'"
check "-v: every vector, no folded line" sh -c \
	"[ \$(grep -c '^    vector [0-7] (irq 10[0-7], MSI-X)' '$T/vv.txt') -eq 8 ] && ! grep -q 'idle vector' '$T/vv.txt'"
check "the kernel's phases: 2 all-zero rows folded into one line, -v shows them" sh -c \
	"grep -q '^        (2 phase rows of no interrupt, map, bounce or wake-up not shown; -v shows them)\$' '$T/v.txt' &&
	 grep -q '^        return 1 irq, ' '$T/v.txt' && ! grep -q '^        issue ' '$T/v.txt' &&
	 grep -q '^        issue  0 irq, 0 map' '$T/vv.txt' && grep -q '^        run    0 irq, 0 map' '$T/vv.txt' &&
	 ! grep -q 'phase rows' '$T/vv.txt'"
# what the VM tests read first (selftests/gpuprobe/vm/tracefs_late_vector.sh, user/tests/vm_sources.sh)
check "the first '  interrupts:' line is still the target's; the kernel counts sum to the body's" sh -c \
	"[ \"\$(awk '/^  interrupts:/ { print \$2; exit }' '$T/v.txt')\" = 250 ] &&
	 [ \"\$(awk '/kernel counted/ { s += \$3 } END { print s + 0 }' '$T/v.txt')\" = 2 ]"

check "--json: the verdict as one object, the same numbers" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
v = d['verdict']
wall = 100 * 10**6
want = [('mapping', 100 * 30000 + 100 * 5000 + 20 * 40000),
        ('interrupt_handlers', 200 * 10000 + 50 * 4000),
        ('interrupt_path_waits', 400000)]
assert v['wall_ns'] == wall, v['wall_ns']
got = [(s['key'], s['total_ns']) for s in v['shares']]
assert got == want, got
for s in v['shares']:
    assert abs(s['share_of_wall'] - s['total_ns'] / wall) < 1e-12, s
assert v['largest'] == 'mapping', v['largest']
assert [n['key'] for n in v['not_measured']] == ['bounces', 'host_to_guest', 'tracing_cost'], v['not_measured']
assert v['exit_status'] == 0 and v['command_line'] is None and v['pids'] == [5150], v
assert list(d).index('verdict') < list(d).index('targets')
" "$T/v.json"

# the tracefs source: DMA calls are instants, no IOMMU record
"$GEN" verdict "$T/t.trace" tracefs
"$GPT" report "$T/t.trace" >"$T/t.txt" 2>&1
check "tracefs: mapping not measured, and why; no IOMMU record said; handlers the largest" sh -c \
	"grep -q '^    DMA/IOMMU mapping: 200 DMA API and 0 IOMMU calls, none timed: tracefs dma: and iommu: events are instants' '$T/t.txt' &&
	 grep -q '^    IOMMU work: no IOMMU map record among 200 DMA API calls' '$T/t.txt' &&
	 grep -q '^  largest: interrupt handlers, 2\.20% of wall (2\.20ms)\$' '$T/t.txt'"

# host + guest: n = 100 pairs; host handler -> injection 4 us, injection ->
# guest handler 16 us (latency 20 us), guest handler -> wake 3 us, handlers
# 2 us on each side, 5 guest map calls of 50 us, 5 host IOMMU maps of 8 us;
# the host records from 1 s to 2 s + 100 x 1 ms + 2 ms: wall 1.102 s
"$GEN" merged "$T/m.trace" inject maps=5
"$GPT" report "$T/m.trace" >"$T/m.txt" 2>&1
"$GPT" report --json "$T/m.trace" >"$T/m.json" 2>&1
rows "$T/m.txt" >"$T/mrows"
printf '%s\n' '0.18%|2.00ms|host -> guest crossing' '0.03%|300.00us|guest handler -> thread wake' \
	'0.02%|250.00us|guest DMA/IOMMU mapping' '0.02%|200.00us|host interrupt handlers' \
	'0.02%|200.00us|guest interrupt handlers' '0.00%|40.00us|host DMA/IOMMU mapping' >"$T/mwant"
check "merged: the crossing first (100 x 20 us of 1.102 s), then the rest by size" cmp -s "$T/mrows" "$T/mwant"
[ "$FAILED" -eq 0 ] || { echo "got:"; cat "$T/mrows"; }
check "merged: the host's wall, the crossing's largest stage (16 of 20 us)" sh -c \
	"grep -q '^  wall time: 1\.102 s (the host.s recording)' '$T/m.txt' &&
	 grep -q '  largest stage  *80\.0% of the crossing: KVM injection -> guest handler\$' '$T/m.txt' &&
	 grep -q '^  KVM injection -> guest handler  *100 .* 1\.60ms   69\.6%  (+-.*: the clock)\$' '$T/m.txt'"
check "merged: the passthrough section as the VM tests cut it (/^passthrough/,/^\$/)" sh -c \
	"sed -n '/^passthrough/,/^\$/p' '$T/m.txt' | grep -q 'guest handler -> thread wake' &&
	 [ \$(grep -c '^passthrough' '$T/m.txt') -eq 1 ]"
check "merged --json: the verdict's crossing and order" python3 -c "
import json, sys
v = json.load(open(sys.argv[1]))['verdict']
want = [('host_to_guest', 100 * 20000), ('guest_handler_to_wake', 100 * 3000),
        ('guest_mapping', 5 * 50000), ('interrupt_handlers', 100 * 2000),
        ('guest_interrupt_handlers', 100 * 2000), ('mapping', 5 * 8000)]
assert v['merged'] is True and v['wall_ns'] == 1102 * 10**6, v['wall_ns']
assert [(s['key'], s['total_ns']) for s in v['shares']] == want, v['shares']
x = v['shares'][0]
assert x['largest_stage'] == 'KVM injection -> guest handler' and x['largest_stage_ns'] == 100 * 16000, x
" "$T/m.json"

"$GEN" known "$T/k.trace"
"$GPT" report "$T/k.trace" >"$T/k.txt" 2>&1
check "records lost: the verdict says its numbers are lower bounds" \
	grep -q '^  counts and shares are lower bounds: 7 records lost' "$T/k.txt"

# The host path's exits of `gentrace merged n=100 inject host_path`, worked
# from synth_merged.c: interrupt i's vCPU is in the guest when i % 3 == 0
# (kicked: an INTR exit, 0x60), it takes i % 4 NPF exits (0x400), and its
# EOI's exit is a HLT (0x78, PV EOI) when i % 5 == 4, else the x2APIC MSR
# write (0x7c); all SVM.  Named in the order first seen (interrupt 0: INTR,
# MSR; 1: NPF; 4: HLT); per interrupt p50 by nearest rank, max, sum.
"$GEN" merged "$T/hp.trace" n=100 inject host_path &&
	"$GPT" report "$T/hp.trace" >"$T/hp.txt" 2>&1
want=$(python3 -c '
import math
per = sorted(1 + i % 4 + (i % 3 == 0) for i in range(100))
intr = sum(i % 3 == 0 for i in range(100))
hlt = sum(i % 5 == 4 for i in range(100))
npf = sum(i % 4 for i in range(100))
print("  exits from the irqfd injection to the EOI'"'"'s (included), per interrupt: p50 %d, max %d, %d over 100 interrupts:"
      " SVM 0x60 %d (INTR), SVM 0x7c %d (MSR), SVM 0x400 %d (NPF), SVM 0x78 %d (HLT)"
      % (per[math.ceil(0.5 * 100) - 1], per[-1], sum(per), intr, 100 - hlt, npf, hlt))')
echo "    want: $want"
check "passthrough host path: its exits per interrupt and by reason, each its ISA's (SVM), as synth_merged.c made them" \
	grep -qxF -- "$want" "$T/hp.txt"
finish
