#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2016,SC2317 # sh -c checks' $1.. are their own; same_counts is called through check
# record --source xentrace on files xentrace could have written:
# xentrace_synth.py makes them from Xen's definitions (3 CPUs' windows as
# xentrace reads its buffers, physical irqs with the TSC's low word
# wrapping, injections without a TSC, nested ones, reinjections, lost-record
# and wrap records, events gpuprobe does not read) and counts what they
# hold; report --json must say the same numbers.  Where Xen's xenalyze is
# installed it reads the same files, so the script's layout is Xen's own.
# A file cut inside a record: read up to its last whole one, said so.  A
# file that is not xentrace's, and the options' misuse, are refused.
# shellcheck source=user/tests/common.sh
. "$(dirname "$0")/common.sh"
SYNTH=$(dirname "$0")/xentrace_synth.py
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

if [ "$(id -u)" -ne 0 ]; then
	skip "xentrace source" "record needs root"
	finish
fi

# the report's "xen" numbers against the script's: NAME EXPECTED.json REPORT.json
same_counts() {
	python3 - "$1" "$2" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
x = json.load(open(sys.argv[2]))["xen"]
bad = []
for k in ("phys_irqs", "injections", "reinjections", "lost", "untimed", "nested"):
    if x[k] != e[k]:
        bad.append(f"{k}: report {x[k]}, file {e[k]}")
irqs = {str(i["irq"]): (i["count"], i["handler_cycles_max"], i["handler_cycles_mean"])
        for i in x["irqs"]}
want = {k: (v["count"], v["cycles_max"], v["cycles_mean"]) for k, v in e["irqs"].items()}
if irqs != want:
    bad.append(f"irqs: report {irqs}, file {want}")
vecs = {str(v["vector"]): v["injections"] for v in x["vectors"]}
if vecs != e["vectors"]:
    bad.append(f"vectors: report {vecs}, file {e['vectors']}")
for b in bad:
    print("   ", b)
sys.exit(1 if bad else 0)
PY
}

for seed in 26 27 28; do
	python3 "$SYNTH" "$T/x$seed.bin" "$T/x$seed.json" --seed="$seed"
	"$GPT" record -q --no-inject --source xentrace --xentrace-input "$T/x$seed.bin" \
		-o "$T/x$seed.trace" --duration 0.05 2>"$T/err$seed"
	rc=$?
	"$GPT" report --json "$T/x$seed.trace" >"$T/r$seed.json" 2>>"$T/err$seed"
	check "seed $seed: record exits 0" [ "$rc" = 0 ]
	check "seed $seed: Xen's irqs (count, cycles max and mean), injections by vector, reinjections, lost, untimed, nested as the file holds" \
		same_counts "$T/x$seed.json" "$T/r$seed.json"
	# the trace's records by the independent decoder: one kind=1 per physical irq
	n=$(python3 "$(dirname "$0")/tracedump.py" "$T/x$seed.trace" | grep -c '^record xen .* kind=1 ')
	want=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["phys_irqs"])' "$T/x$seed.json")
	check "seed $seed: tracedump.py reads $n physical-irq records, the file holds $want" [ "$n" = "$want" ]
	check "seed $seed: Xen's lost records said on stderr" \
		grep -q "Xen lost [0-9]* trace records" "$T/err$seed"
	if command -v xenalyze >/dev/null 2>&1; then
		# xenalyze prints a REINJ as inj_virq and leaves nested ones out
		xenalyze --svm-mode --dump-all "$T/x$seed.bin" >"$T/xa$seed" 2>&1
		irqs=$(grep -c ' irq_handled irq ' "$T/xa$seed")
		injs=$(grep -c ' inj_virq vec ' "$T/xa$seed")
		want=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["phys_irqs"], d["injections"] + d["reinjections"] - d["nested"])' "$T/x$seed.json")
		check "seed $seed: xenalyze reads the script's file as the script counts it ($irqs $injs vs $want)" \
			[ "$irqs $injs" = "$want" ]
	else
		skip "seed $seed: xenalyze reads the script's file" "xenalyze not installed (xen-utils-common)"
	fi
done

# cut inside its last record
python3 "$SYNTH" "$T/cut.bin" "$T/cut.json" --seed=29 --cut
"$GPT" record -q --no-inject --source xentrace --xentrace-input "$T/cut.bin" \
	-o "$T/cut.trace" --duration 0.05 2>"$T/cuterr"
rc=$?
"$GPT" report --json "$T/cut.trace" >"$T/cut.report.json" 2>/dev/null
check "a cut file: record exits 0" [ "$rc" = 0 ]
check "a cut file: the whole records before the cut counted" same_counts "$T/cut.json" "$T/cut.report.json"
check "a cut file: said so" grep -q "ends inside a record" "$T/cuterr"

# not xentrace's
head -c 4096 /dev/urandom >"$T/random.bin"
printf '\003\360\001\040' >>"$T/random.bin"
"$GPT" record -q --no-inject --source xentrace --xentrace-input "$T/random.bin" \
	-o "$T/random.trace" --duration 0.05 2>"$T/randerr"
rc=$?
check "not a xentrace file: refused (exit 1), no trace written" \
	sh -c '[ "$1" = 1 ] && [ ! -e "$2" ] && grep -q "is not a file xentrace wrote" "$3"' _ "$rc" "$T/random.trace" "$T/randerr"
# the options without the source, and with each other
"$GPT" record -q --xentrace-input "$T/x26.bin" -o "$T/o.trace" --duration 0.05 2>"$T/opterr"
rc=$?
check "--xentrace-input without --source xentrace: exit 2, says so" \
	sh -c '[ "$1" = 2 ] && grep -q "add --source xentrace" "$2"' _ "$rc" "$T/opterr"
# outside dom0: no privcmd, said what to do
if [ ! -e /dev/xen/privcmd ] && [ ! -e /proc/xen/privcmd ]; then
	"$GPT" record -q --no-inject --source xentrace -o "$T/o.trace" --duration 0.05 2>"$T/dom0err"
	rc=$?
	check "outside Xen's dom0: exit 1, says where it works" \
		sh -c '[ "$1" = 1 ] && grep -q "not in Xen.s dom0" "$2"' _ "$rc" "$T/dom0err"
fi
finish
