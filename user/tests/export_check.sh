#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Both Perfetto exports of traces whose every time is known (synth_export.c,
# synth_merged.c, the latter also with a guest workload's CUDA events), decoded without the tool: the protobuf by `protoc
# --decode` against perfetto_subset.proto, the JSON by Python's json; then
# perfetto_check.py compares slices, their nesting, instants and flows with
# what the traces' construction says they must be.
. "$(dirname "$0")/common.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$HERE/gentrace" export "$T/e.trace"
check "gentrace export" [ $? -eq 0 ]
"$GPT" export "$T/e.trace" --perfetto "$T/e.json"
check "export --perfetto exits 0" [ $? -eq 0 ]
out=$(python3 "$HERE/perfetto_check.py" json "$T/e.json" 2>&1)
count_checks "$out" $?

"$HERE/gentrace" merged "$T/m.trace" n=10 latency=20005 drop=3
check "gentrace merged n=10 latency=20005 drop=3" [ $? -eq 0 ]
"$GPT" export "$T/m.trace" --perfetto "$T/m.json"
check "export --perfetto of a host + guest trace exits 0" [ $? -eq 0 ]
out=$(python3 "$HERE/perfetto_check.py" merged "$T/m.json" 10 20005 3 2>&1)
count_checks "$out" $?

"$HERE/gentrace" merged "$T/ma.trace" n=10 app
check "gentrace merged n=10 app" [ $? -eq 0 ]
"$GPT" export "$T/ma.trace" --perfetto "$T/ma.json"
check "export --perfetto of a host + guest trace with the guest's CUDA events exits 0" [ $? -eq 0 ]
out=$(python3 "$HERE/perfetto_check.py" merged-app "$T/ma.json" 2>&1)
count_checks "$out" $?

# each interrupt one flow through its host handler, KVM injection, guest
# handler and woken thread, its stages differing by interrupt, on the exact
# (TSC) clock; with the exchanges 3 us wrong (within both bounds: the exact
# clock is used; 50 us would refuse it) the hops must stay where the exact
# clock puts the guest's slices; with the host path, the irqfd step and the
# delivering VM entry too
for extra in "" "offset_error=3000" "host_path"; do
	"$HERE/gentrace" merged "$T/c.trace" n=100 inject vary tsc $extra
	check "gentrace merged n=100 inject vary tsc $extra" [ $? -eq 0 ]
	"$GPT" export "$T/c.trace" --perfetto "$T/c.json"
	check "export --perfetto of the crossing trace $extra exits 0" [ $? -eq 0 ]
	out=$(python3 "$HERE/perfetto_check.py" crossing "$T/c.json" 100 $([ "$extra" = host_path ] && echo host_path) 2>&1)
	count_checks "$out" $?
done

if ! command -v protoc >/dev/null; then
	skip "the protobuf export" "no protoc (Debian protobuf-compiler; scripts/deps.sh)"
	finish
fi
"$GPT" export "$T/e.trace" --perfetto-proto "$T/e.pftrace"
check "export --perfetto-proto exits 0" [ $? -eq 0 ]
protoc --proto_path="$HERE" --decode=gpuprobe_test.Trace perfetto_subset.proto \
	<"$T/e.pftrace" >"$T/e.txt" 2>"$T/protoc.err"
check "protoc --decode reads it all as a Trace" sh -c '[ $0 -eq 0 ] && [ -s "$1" ] && [ ! -s "$2" ]' \
	$? "$T/e.txt" "$T/protoc.err"
out=$(python3 "$HERE/perfetto_check.py" proto "$T/e.txt" 2>&1)
count_checks "$out" $?
finish
