#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --source tracefs --cgroup on this machine: the cgroup's pids go
# into set_event_pid, read again every 100 ms: a process started in the
# cgroup, a child it forks, one moved in mid-run and one in a cgroup 32
# levels below have wake-ups in the trace, one outside (sleeping the same
# way) and one 33 levels below have none.  The pids are the
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
# cgroups 32 and 33 levels below it: the source reads down to 32 levels
# below the cgroup (CGROUP_MAX_DEPTH, tracefs_cgroup.c), no further
D33=$CG
for _ in $(seq 33); do D33=$D33/d; done
D32=${D33%/d}
mkdir -p "$D33" "$CG/many"
cleanup() {
	touch "$T/stop"
	wait	# every loop ends within 20 ms of stop: a cgroup with a task in it cannot be removed
	d=$D33
	while [ "$d" != "$CG" ]; do rmdir "$d" 2>/dev/null; d=${d%/d}; done
	rmdir "$CG/many" "$CG" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
mkfifo "$T/fifo"
# a sure wake-up every 20 ms (a timed read of a fifo no one writes), no fork
loop="while [ ! -e '$T/stop' ]; do read -t 0.02 x <&3; done 3<>'$T/fifo'"
bash -c "echo \$\$ > '$CG/cgroup.procs'; ( $loop ) & echo \$! > '$T/child'; $loop" &
inside=$!
bash -c "$loop" &
outside=$!
bash -c "$loop" &
mover=$!
bash -c "echo \$\$ > '$D32/cgroup.procs'; $loop" &
at32=$!
bash -c "echo \$\$ > '$D33/cgroup.procs'; $loop" &
at33=$!
# 60 processes in one cgroup below it, there before the recording: the
# pid table grows past its first 64 entries' doubling (tracefs_cgroup.c)
bash -c "echo \$\$ > '$CG/many/cgroup.procs'; for i in \$(seq 60); do ( $loop ) & echo \$! >> '$T/many'; done; wait" &
many=$!
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
wait $inside $outside $mover $at32 $at33 $many 2>/dev/null
"$GPT" export --csv "$T/cg.csv" "$T/cg.trace"
awk -F, '$1 == "wakeup" { n[$16]++ } END { for (p in n) print p, n[p] }' "$T/cg.csv" >"$T/wakes"
count() { awk -v p="$1" '$1 == p { print $2; f = 1 } END { if (!f) print 0 }' "$T/wakes"; }
echo "    record exit $rc; wake-ups: in the cgroup $inside: $(count $inside), its child $child: $(count "$child"), moved in $mover: $(count $mover); outside $outside: $(count $outside); 32 levels below $at32: $(count $at32), 33 levels below $at33: $(count $at33)"
check "tracefs --cgroup: record exits 0" [ "$rc" -eq 0 ]
check "tracefs --cgroup: the cgroup's process is followed" [ "$(count $inside)" -ge 1 ]
check "tracefs --cgroup: a child forked in it is followed" [ "$(count "$child")" -ge 1 ]
check "tracefs --cgroup: a process moved in mid-run is followed" [ "$(count $mover)" -ge 1 ]
check "tracefs --cgroup: a process outside is not" [ "$(count $outside)" -eq 0 ]
check "tracefs --cgroup: a process in a cgroup 32 levels below is followed" [ "$(count $at32)" -ge 1 ]
check "tracefs --cgroup: one 33 levels below is not (the depth read)" [ "$(count $at33)" -eq 0 ]
nmany=0
for p in $(cat "$T/many"); do [ "$(count "$p")" -ge 1 ] && nmany=$((nmany + 1)); done
echo "    of the 60 processes of $CG/many: $nmany with wake-ups"
check "tracefs --cgroup: every one of 60 processes in a cgroup below it is followed" [ "$nmany" -eq 60 ]
# set_event_pid holds the cgroup's pids from the start: the kernel records a
# switch when the task switched out or in is one of them, so every switch
# row has a followed task on one side (pid 0, the idle task, never is)
{ printf '%s\n' "$inside" "$child" "$mover" "$at32" "$many"; cat "$T/many"; } >"$T/followed"
awk -F, 'NR == FNR { f[$1] = 1; next } $1 == "switch" { n++; if (!($16 in f) && !($17 in f)) bad++ }
	END { print n + 0, bad + 0 }' "$T/followed" "$T/cg.csv" >"$T/switches"
echo "    switch rows, and rows with no followed task on either side: $(cat "$T/switches")"
check "tracefs --cgroup: switches recorded, each with a task of the cgroup switched in or out" \
	sh -c 'read -r n bad <"$1" && [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]' _ "$T/switches"

# record --cgroup -- CMD: the workload is followed with the cgroup, though
# it runs outside it (record's own cgroup); it writes its pid itself
rm -f "$T/stop"
"$GPT" record -q --source tracefs -d "$BDF" --cgroup "$CG" -o "$T/wl.trace" -- \
	bash -c "echo \$\$ > '$T/wl'; for i in \$(seq 25); do read -t 0.02 x <&3; done 3<>'$T/fifo'; exit 0" \
	>"$T/wl.rec" 2>&1
rc=$?
"$GPT" export --csv "$T/wl.csv" "$T/wl.trace" 2>/dev/null
wl=$(cat "$T/wl" 2>/dev/null)
nwl=$(awk -F, -v p="${wl:-none}" '$1 == "wakeup" && $16 == p { n++ } END { print n + 0 }' "$T/wl.csv" 2>/dev/null)
echo "    record -- CMD exit $rc; the workload $wl (outside the cgroup): ${nwl:-0} wake-ups"
check "tracefs --cgroup -- CMD: the workload outside the cgroup is followed too" \
	sh -c '[ "$1" -eq 0 ] && [ "${2:-0}" -ge 1 ] && ! grep -qx "$3" "$4/cgroup.procs"' _ "$rc" "$nwl" "$wl" "$CG"

# an empty cgroup at the start: the sched instance stays off (an empty
# set_event_pid filters nothing) and goes on at its first pid, a process
# moved in mid-run, without a warning
mkdir "$CG/empty"
bash -c "$loop" &
late=$!
"$GPT" record -q --source tracefs -d "$BDF" --cgroup "$CG/empty" --duration 1.5 -o "$T/e.trace" \
	>"$T/e.rec" 2>&1 &
rec=$!
sleep 0.7
echo "$late" > "$CG/empty/cgroup.procs"
wait $rec
rc=$?
"$GPT" export --csv "$T/e.csv" "$T/e.trace" 2>/dev/null
nlate=$(awk -F, -v p="$late" '$1 == "wakeup" && $16 == p { n++ } END { print n + 0 }' "$T/e.csv" 2>/dev/null)
echo "    record of an empty cgroup exit $rc; $late moved in mid-run: ${nlate:-0} wake-ups"
check "tracefs --cgroup of an empty cgroup: a process moved in is followed, no warning" \
	sh -c '[ "$1" -eq 0 ] && [ "${2:-0}" -ge 1 ] && ! [ -s "$3" ]' _ "$rc" "$nlate" "$T/e.rec"
touch "$T/stop"
wait $late 2>/dev/null
echo "$late" > "$V2/cgroup.procs" 2>/dev/null
rmdir "$CG/empty"

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
