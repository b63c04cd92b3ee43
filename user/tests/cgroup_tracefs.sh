#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --source tracefs --cgroup on this machine: the cgroup's pids go
# into set_event_pid, read again every 100 ms: a process started in the
# cgroup, a child it forks and one moved in mid-run have wake-ups in the
# trace, one outside (sleeping the same way) has none.  The pids are the
# ones this script started; the trace is read back with export --csv.
. "$(dirname "$0")/common.sh"
need_tracefs_disk "tracefs --cgroup"
if ! command -v curl >/dev/null || ! command -v bash >/dev/null; then
	skip "tracefs --cgroup" "no curl or bash (scripts/deps.sh installs them)"
	finish
	exit
fi
V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
CG=$V2/gpuprobe-test.$$
if [ -z "$V2" ] || ! mkdir "$CG" 2>/dev/null; then
	skip "tracefs --cgroup" "no writable cgroup2 here"
	finish
	exit
fi
T=$(mktemp -d)
trap 'touch "$T/stop"; sleep 0.2; rmdir "$CG" 2>/dev/null; rm -rf "$T"' EXIT
mkfifo "$T/fifo"
# a sure wake-up every 20 ms (a timed read of a fifo no one writes), no fork
loop="while [ ! -e '$T/stop' ]; do read -t 0.02 x <&3; done 3<>'$T/fifo'"
bash -c "echo \$\$ > '$CG/cgroup.procs'; ( $loop ) & echo \$! > '$T/child'; $loop" &
inside=$!
bash -c "$loop" &
outside=$!
bash -c "$loop" &
mover=$!
sleep 0.3
child=$(cat "$T/child")
"$GPT" record -q --source tracefs -d "$BDF" --cgroup "$CG" --duration 2 -o "$T/cg.trace" \
	>"$T/rec" 2>&1 &
rec=$!
sleep 1
echo "$mover" > "$CG/cgroup.procs"
wait $rec
rc=$?
touch "$T/stop"
wait $inside $outside $mover 2>/dev/null
"$GPT" export --csv "$T/cg.csv" "$T/cg.trace"
awk -F, '$1 == "wakeup" { n[$16]++ } END { for (p in n) print p, n[p] }' "$T/cg.csv" >"$T/wakes"
count() { awk -v p="$1" '$1 == p { print $2; f = 1 } END { if (!f) print 0 }' "$T/wakes"; }
echo "    record exit $rc; wake-ups: in the cgroup $inside: $(count $inside), its child $child: $(count "$child"), moved in $mover: $(count $mover); outside $outside: $(count $outside)"
check "tracefs --cgroup: record exits 0" [ "$rc" -eq 0 ]
check "tracefs --cgroup: the cgroup's process is followed" [ "$(count $inside)" -ge 1 ]
check "tracefs --cgroup: a child forked in it is followed" [ "$(count "$child")" -ge 1 ]
check "tracefs --cgroup: a process moved in mid-run is followed" [ "$(count $mover)" -ge 1 ]
check "tracefs --cgroup: a process outside is not" [ "$(count $outside)" -eq 0 ]

# serve --cgroup: the wake-up latency histogram is the cgroup's, labelled
# so (its counts are not checked here: serve pairs a wake-up with the last
# interrupt before it, which few of a dd's pass on this machine, --pid too)
"$GPT" serve -q --source module -d "$BDF" --cgroup "$CG" >/dev/null 2>"$T/err"
check "serve --cgroup --source module: exit 2, the module has no wake-ups" \
	sh -c '[ "$1" -eq 2 ] && grep -q "needs the tracefs source" "$2"' _ $? "$T/err"
PORT=$((20000 + $$ % 10000))
"$GPT" serve -q -d "$BDF" --cgroup "$CG" --listen "127.0.0.1:$PORT" 2>"$T/serve.err" &
serve=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/metrics" >"$T/m.prom" 2>/dev/null && break; sleep 0.1; done
kill "$serve"
wait "$serve"
check "serve --cgroup: the wake-up histogram carries cgroup=\"PATH\", every one of its lines" \
	sh -c 'n=$(grep -c "^gpuprobe_wakeup_latency_seconds" "$1"); l=$(grep -c "^gpuprobe_wakeup_latency_seconds.*,cgroup=\"$2\"" "$1"); [ "$n" -gt 0 ] && [ "$n" = "$l" ]' \
	_ "$T/m.prom" "$CG"
check "serve --cgroup: no other family carries it" \
	sh -c '! grep -v "^gpuprobe_wakeup_latency_seconds" "$1" | grep -q "cgroup="' _ "$T/m.prom"
finish
