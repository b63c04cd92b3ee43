#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `probe --api edu` without the edu device: its refusals (options, debugfs
# missing, not root, no device, several, a device that is not edu), the
# exact workload it writes to the driver's controls (a stand-in debugfs of
# plain files, GPUPROBE_DEBUGFS), the JSON it makes of it, and `compare` on
# that JSON.  The real device is driven in the nested tier (base_table.sh).
. "$(dirname "$0")/common.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# A stand-in for debugfs/gpuprobe_edu/BDF: the controls as plain files (each
# write appends what the tool wrote) and a stats file that never moves.
fake_edu() {	# root bdf
	mkdir -p "$1/gpuprobe_edu/$2"
	: >"$1/gpuprobe_edu/$2/irq"
	: >"$1/gpuprobe_edu/$2/dma"
	: >"$1/gpuprobe_edu/$2/mapbench"
	printf 'irq 24\nirq_raised 3\nirq_handled 3\ndma_maps 0\ndma_unmaps 0\n' \
		>"$1/gpuprobe_edu/$2/stats"
}
# probe_err NAME EXIT PATTERN ARGS...: exits EXIT and says PATTERN on stderr
probe_err() {
	name=$1 want=$2 pattern=$3
	shift 3
	"$GPT" probe "$@" >"$T/out.txt" 2>"$T/err.txt"
	rc=$?
	if [ $rc -eq "$want" ] && grep -q -- "$pattern" "$T/err.txt" "$T/out.txt"; then
		pass "$name"
	else
		fail "$name" "exit $rc: $(cat "$T/err.txt" "$T/out.txt")"
	fi
}

out=$("$GPT" probe --help)
check "probe --help teaches --api edu, -d and --rounds" sh -c \
	'printf "%s" "$1" | grep -q -- "--api edu \[-d BDF\] \[--rounds N\]" &&
	 printf "%s" "$1" | grep -q -- "--rounds N " && printf "%s" "$1" | grep -q GPUPROBE_DEBUGFS' _ "$out"
probe_err "-d without --api edu: exit 2" 2 "-d applies to --api edu only" -d 0000:00:03.0
probe_err "--rounds without --api edu: exit 2" 2 "--rounds applies to --api edu only" --rounds 5
probe_err "--rounds 0: exit 2" 2 "expected a number of samples" --api edu --rounds 0
probe_err "--rounds junk: exit 2" 2 "expected a number of samples" --api edu --rounds 12x
probe_err "--api metal names edu among the choices: exit 2" 2 "expected cuda, opencl, all or edu" --api metal

mkdir -p "$T/plain"
GPUPROBE_DEBUGFS=$T/plain probe_err "debugfs not mounted: exit 1, says how to mount it" 1 \
	"edu: skipped: debugfs is not mounted at $T/plain: mount -t debugfs none $T/plain" --api edu
GPUPROBE_DEBUGFS=$T/plain "$GPT" probe --api edu --json >"$T/skip.json" 2>/dev/null
check "the refusal is in the JSON too, status skipped" python3 -c "
import json, sys
a = json.load(open(sys.argv[1]))['apis']
assert len(a) == 1 and a[0]['api'] == 'edu' and a[0]['status'] == 'skipped', a
assert a[0]['reason'].startswith('debugfs is not mounted'), a" "$T/skip.json"

mkdir -p "$T/root-only/gpuprobe_edu"
chmod 700 "$T/root-only"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$T"
	GPUPROBE_DEBUGFS=$T/root-only setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$GPT" probe --api edu >"$T/out.txt" 2>&1
	check "not root (debugfs is 0700): exit 1, says run as root" sh -c \
		'[ $1 -eq 1 ] && grep -q "cannot read .*: permission denied .*run as root" "$2"' _ $? "$T/out.txt"
else
	skip "not root" "needs root and setpriv to drop to nobody"
fi

mkdir -p "$T/empty/gpuprobe_edu"
GPUPROBE_DEBUGFS=$T/empty probe_err "gpuprobe_edu drives no device: exit 1, says bind one" 1 \
	"gpuprobe_edu is loaded but drives no edu device" --api edu
fake_edu "$T/two" 0000:00:03.0
fake_edu "$T/two" 0000:00:04.0
GPUPROBE_DEBUGFS=$T/two probe_err "two edu devices and no -d: exit 1, names both" 1 \
	"2 edu devices are bound to gpuprobe_edu (0000:00:0[34].0, 0000:00:0[34].0): name one with -d" --api edu
GPUPROBE_DEBUGFS=$T/two probe_err "-d that is no PCI address: exit 1" 1 \
	"-d 12345: not a PCI address" --api edu -d 12345
GPUPROBE_DEBUGFS=$T/two probe_err "-d of a device that does not exist: exit 1, says lspci" 1 \
	"no PCI device 0000:ff:1f.7 .*lspci -D" --api edu -d ff:1f.7
other=$(ls /sys/bus/pci/devices 2>/dev/null | head -n1)
if [ -n "$other" ] && [ "$(cat "/sys/bus/pci/devices/$other/vendor")" != 0x1234 ]; then
	GPUPROBE_DEBUGFS=$T/two probe_err "-d of a PCI device that is not edu: exit 1, names its ids" 1 \
		"$other is [0-9a-f]*:[0-9a-f]*, not QEMU's edu device (1234:11e8)" --api edu -d "$other"
else
	skip "-d of a PCI device that is not edu" "no other PCI device here"
fi

# The workload, exactly, through the stand-in: R writes of "0" then of "1"
# to irq, ceil(R/10) of "verify 2048" to dma, R of "16 4096" to mapbench.
fake_edu "$T/one" 0000:00:03.0
D=$T/one/gpuprobe_edu/0000:00:03.0
GPUPROBE_DEBUGFS=$T/one "$GPT" probe --api edu -d 00:03.0 --rounds 12 -o "$T/base.json" >"$T/base.txt" 2>&1
check "a run against the stand-in: exit 0" [ $? -eq 0 ]
check "irq got 12 x '0' then 12 x '1'" [ "$(cat "$D/irq")" = "000000000000111111111111" ]
check "dma got 2 x 'verify 2048' (a tenth of 12, rounded up)" [ "$(cat "$D/dma")" = "verify 2048verify 2048" ]
check "mapbench got 12 x '16 4096'" sh -c \
	'[ "$(cat "$1")" = "$(printf "16 4096%.0s" 1 2 3 4 5 6 7 8 9 10 11 12)" ]' _ "$D/mapbench"
check "JSON: api edu, its 4 probes with 12, 12, 2, 12 samples, phases and counters" python3 -c "
import json, sys
a = json.load(open(sys.argv[1]))['apis']
assert len(a) == 1 and a[0]['api'] == 'edu' and a[0]['status'] == 'ok', a
e = a[0]
assert [(p['name'], p['n']) for p in e['probes']] == [('write.noop', 12), ('irq.round_trip', 12),
    ('dma.verify.2KiB', 2), ('map_unmap.4KiB', 12)], e['probes']
assert all(p['unit'] == 'ns' and 0 < p['min'] <= p['p50'] <= p['p99'] <= p['max'] for p in e['probes'])
assert [p['bytes'] for p in e['probes']] == [0, 0, 4096, 0]
assert [ph['name'] for ph in e['phases']] == [p['name'] for p in e['probes']]
assert all(ph['start_ns'] <= ph['end_ns'] for ph in e['phases'])
assert e['device'] == 'QEMU edu 0000:00:03.0 (1234:11e8)', e['device']
assert set(e['counters']) >= {'irq_raised', 'irq_handled', 'dma_maps', 'dma_unmaps', 'verify_failures'}
assert all(v == 0 for v in e['counters'].values()), e['counters']
" "$T/base.json"
check "counters that did not move: the reason says so (text and JSON)" sh -c \
	'grep -q "note: the driver.s counters do not match the workload: irq_raised +0 (expected 12), dma_maps +0 and dma_unmaps +0 (expected 196)" "$1" &&
	 grep -q "\"reason\": \"the driver.s counters do not match" "$2"' _ "$T/base.txt" "$T/base.json"

# compare reads it: every edu probe a row; a run 3 times slower at irq.round_trip
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
for p in d['apis'][0]['probes']:
    if p['name'] == 'irq.round_trip':
        p['p50'] *= 3
json.dump(d, open(sys.argv[2], 'w'))" "$T/base.json" "$T/run.json"
"$GPT" compare "$T/base.json" "$T/run.json" >"$T/cmp.txt"
check "compare of two edu runs: exit 0, a row per probe, irq.round_trip at 300.0%" sh -c \
	'[ $1 -eq 0 ] && grep -q "^edu:" "$2" && grep -q "^  irq.round_trip .* 300.0%" "$2" &&
	 grep -q "^  write.noop .* 100.0%" "$2" && grep -q "^  dma.verify.2KiB .* 100.0%" "$2" &&
	 grep -q "^  map_unmap.4KiB .* 100.0%" "$2" && ! grep -q "no counterpart" "$2"' _ $? "$T/cmp.txt"
check "compare --json of two edu runs: 4 rows, exact percentages" sh -c \
	'"$1" compare "$2" "$3" --json | python3 -c "
import json, sys
d = json.load(sys.stdin)
p = {(r[\"api\"], r[\"name\"]): r[\"percent_p50\"] for r in d[\"probes\"]}
assert p == {(\"edu\", \"write.noop\"): 100, (\"edu\", \"irq.round_trip\"): 300,
             (\"edu\", \"dma.verify.2KiB\"): 100, (\"edu\", \"map_unmap.4KiB\"): 100}, p
assert d[\"unmatched\"] == 0"' _ "$GPT" "$T/base.json" "$T/run.json"

finish
