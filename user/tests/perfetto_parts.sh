#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The IOMMU parts in `export --perfetto-proto` (Documentation/iommu.md):
# `gentrace parts` (synth_parts.c) writes DMA calls of two targets with
# their part records in the module's order (a part before its call, inner
# parts first, one after its call), flush-queue timers in no call, a part
# of a call not recorded and one crossing its call's end; decoded by
# `protoc --decode` against perfetto_subset.proto, every track's slices
# must nest, and perfetto_parts_check.py compares where each part is drawn
# with what the trace's construction says.
. "$(dirname "$0")/common.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
if ! command -v protoc >/dev/null; then
	skip "IOMMU parts in the Perfetto protobuf export" "no protoc (Debian protobuf-compiler; scripts/deps.sh)"
	finish
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$HERE/gentrace" parts "$T/p.trace"
check "gentrace parts" [ $? -eq 0 ]
MEMCHECK=
command -v valgrind >/dev/null &&
	MEMCHECK="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
$MEMCHECK "$GPT" export "$T/p.trace" --perfetto-proto "$T/p.pftrace"
check "export --perfetto-proto exits 0${MEMCHECK:+ (under valgrind: no memory error, no leak)}" [ $? -eq 0 ]
protoc --proto_path="$HERE" --decode=gpuprobe_test.Trace perfetto_subset.proto \
	<"$T/p.pftrace" >"$T/p.txt" 2>"$T/protoc.err"
check "protoc --decode reads it all as a Trace" sh -c '[ $0 -eq 0 ] && [ -s "$1" ] && [ ! -s "$2" ]' \
	$? "$T/p.txt" "$T/protoc.err"
out=$(python3 "$HERE/perfetto_check.py" shape proto "$T/p.txt" 2>&1)
count_checks "$out" $?
out=$(python3 "$HERE/perfetto_parts_check.py" "$T/p.txt" 2>&1)
rc=$?
count_checks "$(printf '%s\n' "$out" | grep -v ' passed, ')" $rc
"$GPT" export "$T/p.trace" --perfetto "$T/p.json"
check "export --perfetto (JSON) of the same trace exits 0, valid JSON" \
	python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$T/p.json"
finish
