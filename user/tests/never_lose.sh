#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A trace is never lost (Documentation/trace-format.md, "Incomplete files"):
# record killed with SIGKILL leaves a readable, incomplete file; a record that
# cannot start (unprivileged, no module) leaves an existing file untouched and
# no temporary file; a full disk stops the recording, not the workload.
# Needs root and tracefs (the tracefs source on this machine's virtio disk).
. "$(dirname "$0")/common.sh"

need_tracefs_disk "never-lose-a-trace tests"
T=$(mktemp -d /var/tmp/gpuprobe-never-lose.XXXXXX)
chmod 755 "$T"
cleanup() {
	umount "$T/full" 2>/dev/null
	[ -s "$T/sleep.pid" ] && kill "$(cat "$T/sleep.pid")" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
no_temp_left() { [ -z "$(ls -A "$1" | grep '^\.' )" ]; }
IO="for i in \$(seq 20); do dd if=/dev/zero of='$T/dd.bin' bs=64k count=4 oflag=direct conv=fsync 2>/dev/null; done"

# --- SIGKILL mid-run: the partial file is reported -----------------------
"$GPT" record -q --source tracefs -d "$BDF" -o "$T/killed.trace" -- \
	sh -c "echo \$\$ >'$T/sleep.pid'; $IO; exec sleep 30" &
rec=$!
for i in $(seq 100); do	# the trace is in place once the source runs
	[ -e "$T/killed.trace" ] && [ -s "$T/sleep.pid" ] && break
	sleep 0.1
done
sleep 1.5			# the dd loop, and a flush or more
kill -KILL $rec
wait $rec 2>/dev/null
kill "$(cat "$T/sleep.pid")" 2>/dev/null
"$GPT" report --json "$T/killed.trace" >"$T/killed.json" 2>"$T/killed.err"
check "record SIGKILLed: report exits 0" [ $? -eq 0 ]
check "record SIGKILLed: complete false, irq records kept, warning with the offset" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["trace"]["complete"] is False and d["trace"]["truncated_at"] > 0, d["trace"]
assert sum(v["count"] for v in d["targets"][0]["vectors"]) > 0
assert "incomplete" in open(sys.argv[2]).read() and "offset" in open(sys.argv[2]).read()
' "$T/killed.json" "$T/killed.err"

# --- a failed start leaves an existing trace untouched --------------------
printf 'an older trace, byte for byte\n' >"$T/existing.trace"
cp "$T/existing.trace" "$T/existing.orig"
setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
	"$GPT" record --source tracefs -d "$BDF" -o "$T/existing.trace" -- true 2>"$T/unpriv.err"
rc=$?
check "unprivileged record: fails, 'needs root' said first" sh -c \
	"[ $rc -ne 0 ] && head -1 '$T/unpriv.err' | grep -q 'needs root'"
check "unprivileged record -o EXISTING: EXISTING unchanged, no temporary file" sh -c \
	"cmp -s '$T/existing.trace' '$T/existing.orig' && [ -z \"\$(ls -A '$T' | grep '^\\.')\" ]"
if ! "$GPT" info --json 2>/dev/null | grep -q '"loaded": *true'; then
	"$GPT" record -q --source module -o "$T/existing.trace" -- true 2>/dev/null
	rc=$?
	check "record --source module without the module: fails, EXISTING unchanged, no temporary file" \
		sh -c "[ $rc -ne 0 ] && cmp -s '$T/existing.trace' '$T/existing.orig' && [ -z \"\$(ls -A '$T' | grep '^\\.')\" ]"
fi

# --- disk full: the workload finishes, the trace so far is readable --------
mkdir "$T/full"
if mount -t tmpfs -o size=8k tmpfs "$T/full"; then
	"$GPT" record --source tracefs -d "$BDF" -o "$T/full/full.trace" -- \
		sh -c "$IO; sleep 0.5; $IO; touch '$T/workload-finished'" 2>"$T/full.err"
	check "disk full: the workload ran to its end" [ -e "$T/workload-finished" ]
	check "disk full: the user is told" grep -q "No space left" "$T/full.err"
	"$GPT" report --json "$T/full/full.trace" >"$T/full.json" 2>/dev/null
	check "disk full: the trace up to that point is readable, marked incomplete" sh -c \
		"[ $? -eq 0 ] && python3 -c 'import json,sys; t = json.load(open(sys.argv[1]))[\"trace\"]; assert t[\"complete\"] is False and t[\"records\"] > 0, t' '$T/full.json'"
	umount "$T/full"
else
	skip "disk full" "cannot mount a tmpfs"
fi
finish
