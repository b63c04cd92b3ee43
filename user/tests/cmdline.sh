#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The workload's command line in the trace (Documentation/trace-format.md,
# "Workload command"): record -- CMD ARGS... stores the exact argv (spaces,
# quotes, empty strings, non-ASCII and control bytes) and report, --json and
# --csv give it back: the expectations are the argv passed here, compared
# byte for byte after a shell (bash) or Python's csv reads the output back,
# and tracedump.py's decoding of the record.  A long argv is cut at 4096
# bytes and flagged; a trace without the record says the command is not
# known; a guest's --guest-command arrives through the merge.
. "$(dirname "$0")/common.sh"
D=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
AGENT=""
trap '[ -n "$AGENT" ] && kill "$AGENT" 2>/dev/null; rm -rf "$T"' EXIT

# without a workload record: the synthetic trace (no root needed)
"$D/gentrace" known "$T/known.trace" >/dev/null
"$GPT" report "$T/known.trace" >"$T/known.txt" 2>&1
check "no command record: the verdict says the command line is not in the trace" \
	grep -q "^  workload: .*; its command line is not in the trace (recorded without -- CMD" "$T/known.txt"
check "no command record: no workload command line in the summary" \
	sh -c '! grep -q "workload command:" "$1"' _ "$T/known.txt"
"$GPT" report --json "$T/known.trace" >"$T/known.json"
check "no command record: --json command, command_argc, verdict.command_line null, cut false" \
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d["trace"]; v=d["verdict"]
sys.exit(not (t["command"] is None and t["command_argc"] is None and t["command_cut"] is False and
	v["command_line"] is None and v["command_line_of"] is None and v["command_line_cut"] is False))' "$T/known.json"

if [ "$(id -u)" -ne 0 ]; then
	skip "record -- CMD ARGS" "need root"
	finish
fi
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
if [ ! -d /sys/kernel/tracing/events/irq ] || ! command -v bash >/dev/null; then
	skip "record -- CMD ARGS" "no tracefs irq events, or no bash to read the quoting back"
	finish
fi
BDF=$(ls /sys/bus/pci/devices | head -1)

# same_argv FILE ARGS...: FILE holds a command line that bash reads back as ARGS
same_argv() {
	f=$1
	shift
	printf '%s\0' "$@" >"$T/want.bin"
	bash -c 'eval "set -- $(cat "$1")" && printf "%s\0" "$@"' _ "$f" >"$T/got.bin" &&
		cmp -s "$T/want.bin" "$T/got.bin"
}

# argv_json FILE KEY ARGS...: KEY of --json FILE is ARGS (as UTF-8, other bytes U+FFFD)
argv_json() {
	python3 - "$@" <<'PY'
import json, os, sys
path, key, args = sys.argv[1], sys.argv[2], sys.argv[3:]
d = json.load(open(path))
got = eval(key, {"d": d})
want = [os.fsencode(a).decode("utf-8", "replace") for a in args]
sys.exit(0 if got == want else "%r != %r" % (got, want))
PY
}

# the record line tracedump.py decodes: arg=HEX of each argument, argc, nargs, len, flags
dump_has() {	# dump_has TRACE NARGS FLAGS ARGS...: ARGS are the stored ones, argc all
	python3 "$D/tracedump.py" "$1" >"$T/dump.py" && python3 - "$T/dump.py" "$@" <<'PY'
import os, sys
dump, _, argc, flags, args = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:]
lines = [l.split() for l in open(dump) if l.startswith("record workload ")]
if len(lines) != 1:
    sys.exit("%d workload records" % len(lines))
f = lines[0]
kv = dict(x.split("=", 1) for x in f[2:] if "=" in x and not x.startswith("arg="))
stored = [os.fsencode(a) for a in args]
want_args = ["arg=" + a.hex() for a in stored]
got_args = [x for x in f if x.startswith("arg=")]
ok = (got_args == want_args and int(kv["argc"]) == argc and int(kv["nargs"]) == len(stored) and
      int(kv["len"]) == sum(len(a) + 1 for a in stored) and int(kv["flags"]) == flags)
sys.exit(0 if ok else "%r %r / %r" % (kv, got_args[:3], want_args[:3]))
PY
}

TAB=$(printf 'a\tb')
NL=$(printf 'c\nd')
set -- sh -c 'echo "a b"; exit 3' x 'y z' '' "it's" 'é ü' "$TAB" "$NL" "$(printf '\377\001')" '$HOME' '*'
for enc in "" --uncompressed --zstd; do
	n=${enc:-compact}
	# shellcheck disable=SC2086 # $enc: no option or one
	"$GPT" record -q --source tracefs -d "$BDF" -o "$T/$n.trace" $enc -- "$@" >/dev/null
	check "$n: record -- CMD ARGS: exit 3, the workload's" [ $? -eq 3 ]
	check "$n: tracedump.py decodes the workload record: every argument's bytes, argc 13, len, flags 0" \
		dump_has "$T/$n.trace" 13 0 "$@"
	"$D/gentrace" dump "$T/$n.trace" >"$T/dump.c"
	check "$n: the C reader's dump is tracedump.py's, line for line" cmp -s "$T/dump.c" "$T/dump.py"
	"$GPT" report --json "$T/$n.trace" >"$T/$n.json"
	check "$n: --json trace.command is the argv" argv_json "$T/$n.json" 'd["trace"]["command"]' "$@"
	check "$n: --json verdict.command_line is the argv, of the host" \
		argv_json "$T/$n.json" 'd["verdict"]["command_line"] if d["verdict"]["command_line_of"] == "host" else None' "$@"
	check "$n: --json command_argc 13, command_cut false" python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["trace"]
sys.exit(not (t["command_argc"] == 13 and t["command_cut"] is False))' "$T/$n.json"
done
"$GPT" report "$T/compact.trace" >"$T/r.txt"
sed -n 's/^  workload: exit status 3; command: //p' "$T/r.txt" >"$T/verdict_line"
check "report: the verdict's workload line, read back by bash, is the argv" same_argv "$T/verdict_line" "$@"
sed -n 's/^  workload command: //p' "$T/r.txt" >"$T/summary_line"
check "report: the trace summary's workload command, read back by bash, is the argv" \
	same_argv "$T/summary_line" "$@"
"$GPT" export "$T/compact.trace" --csv "$T/c.csv"
python3 -c 'import csv,sys
rows = [r for r in csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8", errors="surrogateescape")) if r["type"] == "workload"]
sys.stdout.buffer.write(rows[0]["command"].encode("utf-8", "surrogateescape") if len(rows) == 1 and rows[0]["count"] == "13" else b"")' \
	"$T/c.csv" >"$T/csv_line"
check "export --csv: one workload row, count 13, its command column read back by bash is the argv" \
	same_argv "$T/csv_line" "$@"

# 4096 bytes of text (NULs included) fit; one more is cut, the last kept ending at the cut
A=$(printf '%02000d' 0)
B=$(printf '%02092d' 0)	# 3 + 3 + 5 ("true") + 2001 + 2093 = 4105: over by 9
"$GPT" record -q --source tracefs -d "$BDF" -o "$T/long.trace" -- sh -c true "$A" "$B" tail >/dev/null
check "long: record exit 0" [ $? -eq 0 ]
KEPT=$(printf '%02083d' 0)	# 4096 - 11 - 2001 = 2084 bytes: 2083 and the NUL
check "long: tracedump.py: 5 of 6 arguments stored, the last cut to end at 4096 bytes, flags 1" \
	dump_has "$T/long.trace" 6 1 sh -c true "$A" "$KEPT"
"$GPT" report --json "$T/long.trace" >"$T/long.json"
check "long: --json command is the cut argv, command_argc 6, command_cut true" sh -c \
	'argv_json() { python3 -c "import json,sys; t=json.load(open(sys.argv[1]))[\"trace\"]
sys.exit(not (t[\"command\"] == sys.argv[2:] and t[\"command_argc\"] == 6 and t[\"command_cut\"] is True))" "$@"; }
	 argv_json "$@"' _ "$T/long.json" sh -c true "$A" "$KEPT"
"$GPT" report "$T/long.trace" >"$T/long.txt"
check "long: the verdict says it was cut, 5 of 6 kept" \
	grep -q "^  workload: exit status 0; command: sh -c true 0* 0* (longer than 4096 bytes: cut there, 5 of its 6 arguments kept)$" "$T/long.txt"
FIT=$(printf '%02083d' 0)	# 11 + 2001 + 2084 = 4096: not cut
"$GPT" record -q --source tracefs -d "$BDF" -o "$T/fit.trace" -- sh -c true "$A" "$FIT" >/dev/null
check "exactly 4096 bytes: all 5 stored, flags 0" dump_has "$T/fit.trace" 5 0 sh -c true "$A" "$FIT"

# the guest's --guest-command: its own recording stores /bin/sh -c CMD, carried wrapped
head -c 24 /dev/urandom | base64 >"$T/token"
chmod 600 "$T/token"
PORT=$((20000 + ($$ + 7) % 20000))
"$GPT" agent --token-file "$T/token" --once --listen "tcp:127.0.0.1:$PORT" 2>"$T/agent.log" &
AGENT=$!
for _ in $(seq 50); do grep -q "listening on" "$T/agent.log" 2>/dev/null && break; sleep 0.1; done
GCMD='echo "guest  run" >/dev/null; true'
"$GPT" record -q --source tracefs -d "$BDF" -o "$T/merged.trace" --guest "tcp:127.0.0.1:$PORT" \
	--token-file "$T/token" --guest-source tracefs --guest-target "$BDF" --guest-command "$GCMD" 2>"$T/merged.err"
check "guest: record --guest --guest-command: exit 0" [ $? -eq 0 ]
wait "$AGENT"
AGENT=""
"$GPT" report --json "$T/merged.trace" >"$T/merged.json"
check "guest: --json verdict.command_line is the guest's /bin/sh -c CMD, of the guest; the host's none" \
	argv_json "$T/merged.json" 'd["verdict"]["command_line"] if d["verdict"]["command_line_of"] == "guest" and d["trace"]["command"] is None else None' /bin/sh -c "$GCMD"
check "guest: --json machines[]: the guest's command is /bin/sh -c CMD" \
	argv_json "$T/merged.json" '[m["command"] for m in d["machines"] if m["role"] == "guest"][0]' /bin/sh -c "$GCMD"
"$GPT" report "$T/merged.trace" >"$T/merged.txt"
sed -n "s/^  workload: exit status 0; the guest's command: //p" "$T/merged.txt" >"$T/guest_line"
check "guest: the verdict names the guest's command, read back by bash" same_argv "$T/guest_line" /bin/sh -c "$GCMD"
finish
