#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A trace is never lost (Documentation/trace-format.md, "Incomplete files"):
# record killed with SIGKILL leaves a readable, incomplete file; a record that
# cannot start (unprivileged, no module) leaves an existing file untouched and
# no temporary file, and the next record removes one a killed record left;
# a full disk or a closed pipe stops the recording, not the workload; a
# second Ctrl-C ends the workload's grace period.
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
# --- a second Ctrl-C cuts the workload's grace period short -----------------
# The workload ignores SIGINT and SIGTERM: after the first Ctrl-C record
# would wait WORKLOAD_GRACE_MS (5 s) before killing it; the second kills it now.
"$GPT" record -q --source tracefs -d "$BDF" -o "$T/hurry.trace" -- \
	sh -c "trap '' INT TERM; echo \$\$ >'$T/hurry.pid'; while :; do sleep 0.1; done" 2>"$T/hurry.err" &
rec=$!
for i in $(seq 100); do
	[ -e "$T/hurry.trace" ] && [ -s "$T/hurry.pid" ] && break
	sleep 0.1
done
kill -INT $rec
sleep 0.5
t0=$(date +%s%N)
kill -INT $rec
wait $rec
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
echo "    record ended ${ms} ms after the second SIGINT (grace period 5000 ms)"
check "second SIGINT: record ends well within the grace period" [ "$ms" -lt 3000 ]
check "second SIGINT: the workload was killed (exit 137), the user told" sh -c \
	"[ $rc -eq 137 ] && grep -q 'interrupted again: killing workload' '$T/hurry.err' && ! kill -0 $(cat "$T/hurry.pid") 2>/dev/null"
"$GPT" report --json "$T/hurry.trace" >"$T/hurry.json" 2>/dev/null
check "second SIGINT: the trace is readable and complete, with the workload's exit status" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["trace"]
assert t["complete"] is True and t["exit_status"] == 137, t
' "$T/hurry.json"

# --- -o - into a pipe its reader closes: a write error, not a SIGPIPE death -
rm -f "$T/pipe.rc" "$T/pipe-finished"
( "$GPT" record --source tracefs -d "$BDF" -o - -- sh -c \
	"grep SigIgn /proc/\$\$/status >'$T/pipe.sigign'; $IO; sleep 0.5; $IO; touch '$T/pipe-finished'" \
	2>"$T/pipe.err"; echo $? >"$T/pipe.rc"; [ -e "$T/pipe-finished" ] && echo yes >"$T/pipe.waited" ) |
	head -c 64 >/dev/null
wait
check "closed pipe: record exits 1 (not 141, killed by SIGPIPE) and says why" sh -c \
	"[ \"\$(cat '$T/pipe.rc')\" = 1 ] && grep -q 'Broken pipe' '$T/pipe.err' && grep -q 'the workload runs on' '$T/pipe.err'"
check "closed pipe: the workload ran to its end before record returned" [ -e "$T/pipe.waited" ]
check "closed pipe: the workload does not inherit the ignored SIGPIPE" python3 -c '
import sys
mask = int(open(sys.argv[1]).read().split()[1], 16)
assert not mask & (1 << 12), hex(mask)
' "$T/pipe.sigign"

# --- temporary files of recorders killed before their source started -------
sh -c 'exit 0' &
dead=$!
wait $dead
: >"$T/.stale.trace.gpuprobe-$dead.AbC123"
: >"$T/.stale.trace.gpuprobe-$$.AbC123"		# a live recorder's (this shell)
"$GPT" record -q --source tracefs -d "$BDF" -o "$T/stale.trace" -- true 2>"$T/stale.err"
check "next record: a killed recorder's temporary file removed, and said" sh -c \
	"[ ! -e '$T/.stale.trace.gpuprobe-$dead.AbC123' ] && grep -q 'temporary file of a record that was killed (pid $dead)' '$T/stale.err'"
check "next record: a live recorder's temporary file kept" [ -e "$T/.stale.trace.gpuprobe-$$.AbC123" ]
rm -f "$T/.stale.trace.gpuprobe-$$.AbC123"
finish
