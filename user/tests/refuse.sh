#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What cannot be right is refused, with the real cause: explain of a trace
# recorded at another time or a -d not in it, compare of runs with nothing in
# common (and what makes two runs differ said), serve without a readable
# source, a target or a live --pid; conflicting options and usage errors
# exit 2.  Expected texts and numbers are hand-worked from the inputs built
# here.
. "$(dirname "$0")/common.sh"
RUN=$(cd "$(dirname "$0")/../../Documentation/results/h200-2026-11-29" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# ---- explain
# the committed run's probe file moved 100 s after its trace's end
python3 - "$RUN/probe-traced.json" "$T/later.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
shift = 100 * 10**9 + (d['end_ns'] - d['start_ns']) * 2
d['start_ns'] += shift
d['end_ns'] += shift
json.dump(d, open(sys.argv[2], 'w'))
EOF
"$GPT" explain "$T/later.json" "$RUN/probe.trace" >/dev/null 2>"$T/err"
rc=$?
check "explain of a trace recorded before the probe ran: exit 1, says so" \
	sh -c '[ "$1" -eq 1 ] && grep -q "was not recorded while the probe ran: the probe ran .* s after the trace" "$2"' \
	_ "$rc" "$T/err"
"$GPT" explain -d 0000:ff:1f.7 "$RUN/probe-traced.json" "$RUN/probe.trace" >/dev/null 2>"$T/err"
rc=$?
check "explain -d of a device not in the trace: exit 2, names it" \
	sh -c '[ "$1" -eq 2 ] && grep -q "not recorded for 0000:ff:1f.7" "$2"' _ "$rc" "$T/err"
"$GPT" explain -d 0000:00:06.0 "$RUN/probe-traced.json" "$T/missing.trace" >/dev/null 2>"$T/err"
rc=$?
check "explain -d with a trace that cannot be read: exit 1 (not a usage error), names it" \
	sh -c '[ "$1" -eq 1 ] && grep -q "missing.trace" "$2"' _ "$rc" "$T/err"
"$GPT" explain -d 0000:00:06.0 "$RUN/probe-traced.json" "$RUN/probe.trace" >/dev/null 2>&1
check "explain -d of the trace's device: exit 0" [ $? -eq 0 ]

# ---- compare: hand-made probe outputs
cat >"$T/base.json" <<'EOF'
{"tool": "gpuprobe-trace probe", "kernel": "6.1.0", "traced": false,
 "apis": [{"api": "cuda", "status": "ok", "device": "NVIDIA H200, PCI 0000:00:06.0",
   "probes": [{"name": "launch", "n": 400, "p25": 90, "p50": 100, "p75": 110, "p99": 200}]}]}
EOF
cat >"$T/run.json" <<'EOF'
{"tool": "gpuprobe-trace probe", "kernel": "6.1.0", "traced": true,
 "apis": [{"api": "cuda", "status": "ok", "device": "NVIDIA L4, PCI 0000:00:07.0",
   "probes": [{"name": "launch", "n": 300, "p25": 95, "p50": 110, "p75": 125, "p99": 300}]}]}
EOF
cat >"$T/other.json" <<'EOF'
{"tool": "gpuprobe-trace probe",
 "apis": [{"api": "opencl", "status": "ok", "device": "pthread-cpu",
   "probes": [{"name": "launch", "n": 10, "p50": 5, "p99": 9}]}]}
EOF
"$GPT" compare "$T/base.json" "$T/other.json" >"$T/out" 2>"$T/err"
rc=$?
check "compare of runs with no probe in common: exit 1, says so, prints no table" \
	sh -c '[ "$1" -eq 1 ] && grep -q "no probe in common" "$2" && [ ! -s "$3" ]' _ "$rc" "$T/err" "$T/out"
"$GPT" compare "$T/base.json" "$T/run.json" >"$T/out" 2>&1
rc=$?
check "compare: RUN p50 110 of BASE 100 is 110.0 %, p99 150.0 %, spread 95.0-125.0 %, n 400/300" \
	sh -c '[ "$1" -eq 0 ] && grep -Eq "^  launch .* 110\.0% +95\.0-125\.0% +150\.0% +400/300$" "$2"' \
	_ "$rc" "$T/out"
check "compare says the devices differ" \
	grep -q "note: cuda: the devices differ: BASE NVIDIA H200, PCI 0000:00:06.0, RUN NVIDIA L4, PCI 0000:00:07.0" "$T/out"
check "compare says RUN was traced and BASE was not" \
	grep -q "note: RUN was traced (gpuprobe-trace record) and BASE was not" "$T/out"
"$GPT" compare --json "$T/base.json" "$T/run.json" >"$T/out.json"
check "compare --json: notes, n and the spread" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
p = d['probes'][0]
assert (p['base_n'], p['run_n']) == (400, 300), p
assert abs(p['percent_run_p25'] - 95.0) < 1e-9 and abs(p['percent_run_p75'] - 125.0) < 1e-9, p
assert len(d['notes']) == 2 and 'devices differ' in d['notes'][0] and 'traced' in d['notes'][1], d['notes']
" "$T/out.json"
"$GPT" compare "$T/base.json" "$T/base.json" >"$T/out" 2>&1
check "compare of a run with itself: no note" sh -c '! grep -q "^note:" "$1"' _ "$T/out"

# ---- serve
timeout 10 "$GPT" serve --pid 999999999 -d 0000:00:00.0 --listen 127.0.0.1:1 >/dev/null 2>"$T/err"
rc=$?
check "serve --pid of no process: exit 1, says so" \
	sh -c '[ "$1" -eq 1 ] && grep -q -- "--pid 999999999: no such process" "$2"' _ "$rc" "$T/err"
display=$(cat /sys/bus/pci/devices/*/class 2>/dev/null | grep -c '^0x03')
if [ "$display" -eq 0 ]; then
	timeout 10 "$GPT" serve --listen 127.0.0.1:1 >/dev/null 2>"$T/err"
	rc=$?
	check "serve with no target (no display device, no -d): exit 1, says how to name one" \
		sh -c '[ "$1" -eq 1 ] && grep -q "no target: .*pass -d BDF" "$2"' _ "$rc" "$T/err"
else
	skip "serve with no target" "this machine has a display-class PCI device"
fi
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && [ -d /sys/kernel/tracing/events/irq ]; then
	# nobody cannot read tracefs: the cause, at once, not "source_up 0" forever
	cp "$GPT" "$T/gpt" && chmod 0755 "$T" "$T/gpt"
	timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$T/gpt" serve --source tracefs -d 0000:00:00.0 --listen 127.0.0.1:1 >/dev/null 2>"$T/err"
	rc=$?
	check "serve unprivileged: exit 1 at once with the real cause (tracefs needs root), not \"kernel before 6.12\"" \
		sh -c '[ "$1" -eq 1 ] && grep -q "cannot read the tracefs source: .*needs root" "$2" && ! grep -q retrying "$2" &&
		       ! grep -q "kernel before 6.12" "$2"' \
		_ "$rc" "$T/err"
else
	skip "serve unprivileged" "needs root, setpriv and tracefs"
fi

# ---- usage
"$GPT" record --zstd --uncompressed -- true >/dev/null 2>"$T/err"
rc=$?
check "record --zstd --uncompressed: exit 2, says they contradict" \
	sh -c '[ "$1" -eq 2 ] && grep -q "contradict" "$2"' _ "$rc" "$T/err"
"$GPT" help record >"$T/out" 2>&1
rc=$?
check "help record: record's own help" \
	sh -c '[ "$1" -eq 0 ] && head -n1 "$2" | grep -q "^usage: gpuprobe-trace record"' _ "$rc" "$T/out"
"$GPT" help frobnicate >/dev/null 2>&1
check "help of an unknown command: exit 2" [ $? -eq 2 ]

# ---- what a file that cannot be read is
printf '\211PNG\r\n\032\n0123456789' >"$T/picture.png"
"$GPT" report "$T/picture.png" >/dev/null 2>"$T/err"
rc=$?
check "report of a short PNG: exit 1, not a trace (not a cut one)" \
	sh -c '[ "$1" -eq 1 ] && grep -q "not a gpuprobe trace file" "$2" && ! grep -q truncated "$2"' _ "$rc" "$T/err"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	"$(dirname "$0")/gentrace" known "$T/private.trace" && chmod 0600 "$T/private.trace"
	chmod 0755 "$T"
	cp "$GPT" "$T/gpt2" && chmod 0755 "$T/gpt2"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$T/gpt2" report "$T/private.trace" \
		>/dev/null 2>"$T/err"
	rc=$?
	check "report of another user's 0600 trace: exit 1, says it is private, not how to record one" \
		sh -c '[ "$1" -eq 1 ] && grep -q "private to who recorded it" "$2" && ! grep -q "record one" "$2"' \
		_ "$rc" "$T/err"
	# a port someone else holds: said as such
	python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(30)' >"$T/port" &
	holder=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$T/port" ] && break; sleep 0.2; done
	timeout 20 "$GPT" serve -q --source tracefs -d 0000:00:00.0 --listen "127.0.0.1:$(cat "$T/port")" \
		>/dev/null 2>"$T/err"
	rc=$?
	kill "$holder" 2>/dev/null
	if [ -d /sys/kernel/tracing/events/irq ]; then
		check "serve on a port another program holds: exit 1, says so" \
			sh -c '[ "$1" -eq 1 ] && grep -q "another program has the port" "$2"' _ "$rc" "$T/err"
	else
		skip "serve on a port in use" "no tracefs irq events"
	fi
	timeout 20 "$GPT" serve -q --source tracefs -d 0000:00:00.0 --listen 192.0.2.1:9477 >/dev/null 2>"$T/err"
	rc=$?
	if [ -d /sys/kernel/tracing/events/irq ]; then
		check "serve on an address no interface has: exit 1, says so (not 'port in use')" \
			sh -c '[ "$1" -eq 1 ] && grep -q "no interface of this machine has that address" "$2"' _ "$rc" "$T/err"
	else
		skip "serve on a foreign address" "no tracefs irq events"
	fi
	# --listen's forms: [ADDR6]:PORT is IPv6 (a port held on ::1 is said as held), a
	# bracket on one side only or no port is no address (refused at once: 5 s is ample)
	for bad in 'x::1]:9477' '[::1:9477' '[::1]:' '127.0.0.1:65536'; do
		timeout 5 "$GPT" serve -q --source tracefs -d 0000:00:00.0 --listen "$bad" >/dev/null 2>"$T/err"
		check "serve --listen $bad: exit 1, expected ADDR:PORT" \
			sh -c '[ "$1" -eq 1 ] && grep -q "expected ADDR:PORT" "$2"' _ $? "$T/err"
	done
	rm -f "$T/port6"
	python3 -c 'import socket,sys,time; s=socket.socket(socket.AF_INET6); s.bind(("::1",0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(30)' >"$T/port6" 2>/dev/null &
	holder=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$T/port6" ] && break; sleep 0.2; done
	if [ -s "$T/port6" ] && [ -d /sys/kernel/tracing/events/irq ]; then
		timeout 20 "$GPT" serve -q --source tracefs -d 0000:00:00.0 --listen "[::1]:$(cat "$T/port6")" \
			>/dev/null 2>"$T/err"
		check "serve --listen [::1]:PORT held by another program: exit 1, that port, IPv6" \
			sh -c '[ "$1" -eq 1 ] && grep -q "cannot listen on \[::1\]:$2: .*another program has the port" "$3"' \
			_ $? "$(cat "$T/port6")" "$T/err"
	else
		skip "serve on an IPv6 port in use" "no IPv6 loopback or no tracefs irq events"
	fi
	kill "$holder" 2>/dev/null
else
	skip "unprivileged read and bind messages" "needs root and setpriv"
fi
finish
