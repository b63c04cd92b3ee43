#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Command-line behaviour that needs no tracing: help, errors, corrupt files.
. "$(dirname "$0")/common.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
GEN="$(dirname "$0")/gentrace"

for cmd in info record report export agent; do
	out=$("$GPT" "$cmd" --help 2>&1)
	rc=$?
	check "$cmd --help exits 0 with EXAMPLES" \
		sh -c '[ "$1" -eq 0 ] && printf "%s" "$2" | grep -q EXAMPLES' _ "$rc" "$out"
done
"$GPT" frobnicate >/dev/null 2>&1
check "unknown command exits 2" [ $? -eq 2 ]

"$GEN" known "$T/known.trace"
check "report on a known trace" sh -c '"$1" report "$2" >"$3/report.txt"' _ "$GPT" "$T/known.trace" "$T"
check "report --json is valid JSON" sh -c \
	'"$1" report "$2" --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert d[\"targets\"][0][\"irq_count\"]==1012"' \
	_ "$GPT" "$T/known.trace"
# synth.c's known trace: vendor 0x10de, device 0x2335
check "report --json: the PCI ids in hex as lspci -n writes them" sh -c \
	'"$1" report "$2" --json | python3 -c "import json,sys; t=json.load(sys.stdin)[\"targets\"][0]; assert (t[\"pci_id\"], t[\"vendor\"]) == (\"10de:2335\", 0x10de), t"' \
	_ "$GPT" "$T/known.trace"

check "export --perfetto: valid JSON, 2 slices per irq, DMA and IOMMU spans" sh -c \
	'"$1" export "$2" --perfetto "$3/p.json" && python3 -c "
import json,sys
ev = json.load(open(sys.argv[1]))[\"traceEvents\"]
x = lambda c: sum(1 for e in ev if e[\"ph\"] == \"X\" and e[\"cat\"] == c)
assert (x(\"irq\"), x(\"dma\"), x(\"iommu\")) == (2 * 1012, 15, 11), (x(\"irq\"), x(\"dma\"), x(\"iommu\"))
names = {e[\"args\"][\"name\"] for e in ev if e[\"ph\"] == \"M\" and e[\"name\"] == \"thread_name\"}
assert {\"CPU 0\", \"CPU 1\", \"vector 0\", \"vector 1\", \"DMA\", \"IOMMU\"} <= names, names
" "$3/p.json"' _ "$GPT" "$T/known.trace" "$T"
check "export --csv: header + one row per record" sh -c \
	'"$1" export "$2" --csv "$3/r.csv" && [ "$(wc -l <"$3/r.csv")" -eq 1059 ] &&
	 [ "$(grep -c "^irq," "$3/r.csv")" -eq 1012 ]' _ "$GPT" "$T/known.trace" "$T"
"$GEN" merged "$T/merged.trace" drop=3
"$GPT" report "$T/merged.trace" >"$T/merged.txt"
check "report on a host + guest trace: the passthrough section, stages and the clock bound" sh -c \
	"grep -q '99 paired, 1 host unpaired, 0 guest unpaired' '$T/merged.txt' &&
	 grep -q 'error bound +-5.00us' '$T/merged.txt' && grep -q 'guest handler -> thread wake' '$T/merged.txt'"
"$GPT" export "$T/merged.trace" --perfetto "$T/merged.json"
check "export --perfetto of a host + guest trace: guest processes, 99 flows" python3 -c "
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
procs = [e['args']['name'] for e in ev if e.get('name') == 'process_name']
assert any(p.startswith('host synthetic-host: ') for p in procs) and any(p.startswith('guest synthetic-guest: ') for p in procs), procs
assert sum(1 for e in ev if e['ph'] == 's') == 99 and sum(1 for e in ev if e['ph'] == 'f') == 99
guest = {e['pid'] for e in ev if e.get('name') == 'process_name' and e['args']['name'].startswith('guest ')}
assert sum(1 for e in ev if e['ph'] == 'X' and e['cat'] == 'irq' and e['pid'] in guest) == 2 * 99
" "$T/merged.json"
check "export --perfetto (host + guest): times in ns, slices nested, each flow started and ended once" \
	python3 "$(dirname "$0")/perfetto_check.py" -q shape json "$T/merged.json"
"$GPT" record --guest-target 0000:00:06.0 >/dev/null 2>"$T/g.err"
check "record --guest-target without --guest: exit 2, says why" sh -c "[ $? -eq 2 ] && grep -q 'need --guest' '$T/g.err'"
"$GPT" agent --listen tcp:127.0.0.1:1 >/dev/null 2>"$T/a.err"
check "agent without a token (a usage error): exit 2, says how to make one" sh -c "[ $? -eq 2 ] && grep -q 'no token.*--token-file' '$T/a.err'"
echo short >"$T/short.token"
"$GPT" agent --token-file "$T/short.token" >/dev/null 2>"$T/a.err"
check "agent with a token under 8 characters: exit 1" sh -c "[ $? -eq 1 ] && grep -q 'shorter than 8' '$T/a.err'"
echo "0123456789abcdef" >"$T/tok"
"$GPT" agent --token-file "$T/tok" --listen udp:1.2.3.4:5 >/dev/null 2>"$T/a.err"
check "agent with a bad address (a usage error): exit 2, names the forms" sh -c "[ $? -eq 2 ] && grep -q 'bad address.*tcp:ADDR:PORT' '$T/a.err'"
"$GPT" record --guest udp:1.2.3.4:5 --token-file "$T/tok" -- true >/dev/null 2>"$T/g.err"
check "record --guest with a bad address (a usage error): exit 2 before anything runs" \
	sh -c "[ $? -eq 2 ] && grep -q 'bad address' '$T/g.err'"
head -c 1000 "$T/known.trace" >"$T/short.trace"
"$GPT" export "$T/short.trace" --csv "$T/short.csv" 2>"$T/short.err"
check "export of a truncated file: exit 0, rows up to the cut, a warning naming the offset" sh -c \
	"[ $? -eq 0 ] && [ \$(wc -l <'$T/short.csv') -gt 1 ] && grep -q 'incomplete.*offset' '$T/short.err'"

out=$("$GPT" report "$T/missing.trace" 2>&1)
rc=$?
check "missing file: exit 1, says how to record" \
	sh -c '[ "$1" -eq 1 ] && printf "%s" "$2" | grep -q "gpuprobe-trace record -o"' _ "$rc" "$out"

size=$(stat -c %s "$T/known.trace")
header=$(od -An -t u4 -j 12 -N 4 "$T/known.trace" | tr -d ' ')
bad=0
for cut in 1 17 239 240 300 415 416 430 457 $((size / 2)) $((size - 32)) $((size - 1)); do
	head -c "$cut" "$T/known.trace" >"$T/cut.trace"
	msg=$("$GPT" report --json "$T/cut.trace" 2>&1 >"$T/cut.json")
	rc=$?
	if [ "$cut" -lt "$header" ]; then	# the header is unreadable: refused
		ok=$([ $rc -eq 1 ] && printf '%s' "$msg" | grep -q "offset" && echo y)
	else					# read up to the last whole record
		ok=$([ $rc -eq 0 ] && printf '%s' "$msg" | grep -q "incomplete.*offset" &&
		     python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["trace"]["complete"] is False' \
			"$T/cut.json" && echo y)
	fi
	if [ "$ok" != y ]; then
		echo "    cut at $cut: rc $rc: $msg"
		bad=$((bad + 1))
	fi
done
check "cut files: header cut refused naming an offset, else read as incomplete (12 cuts)" [ $bad -eq 0 ]

# the man page teaches every option the tool takes, and renders cleanly
MAN1="$(dirname "$0")/../../Documentation/gpuprobe-trace.1"
if command -v man >/dev/null; then
	MANWIDTH=200 man -l "$MAN1" 2>/dev/null >"$T/man.txt"
	missing=""
	for c in info record report export explain agent serve probe compare; do
		for o in $("$GPT" "$c" --help | grep -E '^ +-' | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
			grep -q -- "$o" "$T/man.txt" || missing="$missing $c:$o"
		done
	done
	check "the man page names every long option of every command's --help${missing:+ (missing:$missing)}" \
		[ -z "$missing" ]
	check "the man page's OPTIONS render without a stray double quote" \
		sh -c '! sed -n "/^OPTIONS/,/^NOTES/p" "$1" | grep -q "\""' _ "$T/man.txt"
else
	skip "the man page names every option" "man is missing (scripts/deps.sh installs man-db)"
fi

# bash completion offers every long option of every command's --help, and
# the addresses each --listen takes
COMP="$(dirname "$0")/../../completion/gpuprobe-trace.bash"
if [ -r /usr/share/bash-completion/bash_completion ] && command -v bash >/dev/null; then
	comp() {
		bash -c 'source /usr/share/bash-completion/bash_completion; source "$0"
			COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
			_gpuprobe_trace; echo "${COMPREPLY[*]}"' "$COMP" "$@" 2>/dev/null
	}
	missing=""
	for c in info record report export explain agent serve probe compare; do
		offered=$(comp gpuprobe-trace "$c" --)
		for o in $("$GPT" "$c" --help | grep -E '^ +-' | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
			case $o in --test-*) continue ;; esac	# tests only, not offered
			echo " $offered " | grep -q -- " $o " || missing="$missing $c:$o"
		done
	done
	check "bash completion offers every long option of every --help${missing:+ (missing:$missing)}" \
		[ -z "$missing" ]
	check "bash completion: serve --listen offers HTTP addresses, agent --listen vsock/tcp" \
		sh -c '[ "$1" = "127.0.0.1:9477 [::1]:9477" ] && [ "$2" = "vsock: tcp:" ]' _ \
		"$(comp gpuprobe-trace serve --listen "")" "$(comp gpuprobe-trace agent --listen "")"
else
	skip "bash completion offers every option" "no bash-completion package (scripts/deps.sh installs it)"
fi

# every op code and flag bit of the CSV is documented, with the headers' values
D="$(dirname "$0")"
check "csv-export.md lists every op code and flag bit of the CSV with its value" \
	python3 "$D/csv_doc_check.py" "$D/../../include/uapi/linux/gpuprobe.h" "$D/../lib/tracefile.h" \
	"$D/../../Documentation/csv-export.md"
finish
