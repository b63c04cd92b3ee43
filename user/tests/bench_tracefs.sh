#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make -C user bench-tracefs: the tracefs source against `trace-cmd record`
# on the same events, side by side in one run (issue 16, part 2).  Writes
# Documentation/bench-tracefs.md.
#
# The workload, `perf bench sched pipe -l LOOPS`, is the highest event rate
# this machine makes without a device: two tasks waking each other through a
# pipe, about 3 sched events per loop.  Both recorders follow the workload's
# tasks the same way (set_event_pid + event-fork: record's sched instance,
# trace-cmd's -F -c) and record sched_wakeup and sched_switch; the
# gpuprobe side also records its target's interrupts (-d BDF, few here).
# Per round and recorder: the events in the file, the events the kernel
# lost (ring-buffer overruns, and for trace-cmd the entries it left unread
# in the buffers), the rate (events / the workload's wall time) and the
# recorder's CPU (everything the recorder's process tree used minus what the
# workload used, measured by a benchrun inside the recorder), and the
# workload's slowdown against a round with no recorder.
set -e
cd "$(dirname "$0")/.."
ROUNDS=${BENCH_ROUNDS:-5}
LOOPS=${BENCH_PIPE_LOOPS:-200000}
# a device with MSI vectors if there is one
BDF=${BENCH_BDF:-$(for d in /sys/bus/pci/devices/*; do [ -d "$d/msi_irqs" ] && basename "$d"; done | head -1)}
BDF=${BDF:-$(ls /sys/bus/pci/devices | head -1)}
DIR=${BENCH_DIR:-/tmp/gpuprobe-bench-tracefs}
OUT=${BENCH_OUT:-../Documentation/bench-tracefs.md}
STAT=../scripts/benchstat.py
RUN=$PWD/tests/benchrun
SAMPLES=$DIR/samples.txt

# BENCH_TRACEFS_OPTIONAL=1 (make bench): a machine that cannot run it says so and goes on
cannot() {
	echo "bench-tracefs: $1" >&2
	[ -n "${BENCH_TRACEFS_OPTIONAL:-}" ] && { echo "bench-tracefs: not run" >&2; exit 0; }
	exit 2
}
for tool in perf trace-cmd python3; do
	command -v $tool >/dev/null || cannot "$tool is missing (scripts/deps.sh installs it)"
done
[ -w /sys/kernel/tracing/instances ] || cannot "needs root and tracefs at /sys/kernel/tracing"
mkdir -p "$DIR"
: >"$SAMPLES"
WORK="perf bench sched pipe -l $LOOPS"

field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
cpu() { awk -v u="$(field "$1" user_s)" -v s="$(field "$1" sys_s)" 'BEGIN { printf "%.3f", u + s }'; }
put() { echo "$1 $2" >>"$SAMPLES"; }

# one recorder round: NAME then the recorder's command line up to "--"
record_round() {	# name
	name=$1
	rm -f "$DIR/inner"
	case $name in
	gpuprobe)
		outer=$($RUN ./gpuprobe-trace record -q --source tracefs -d "$BDF" -o "$DIR/g.trace" -- \
			env BENCHRUN_OUT="$DIR/inner" "$RUN" $WORK)
		json=$(./gpuprobe-trace report --json "$DIR/g.trace")
		events=$(printf '%s' "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["sched"]["wakeups"] + d["sched"]["switches"])')
		lost=$(printf '%s' "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["drops"]["lost"])')
		bytes=$(stat -c %s "$DIR/g.trace")
		;;
	trace-cmd)
		# -d --no-filter: this kernel has no set_ftrace_filter, which
		# trace-cmd otherwise insists on (it still complains at the end
		# and exits 1, after writing the file)
		outer=$($RUN trace-cmd record -q -d --no-filter -F -c -e sched:sched_wakeup \
			-e sched:sched_switch -o "$DIR/t.dat" \
			env BENCHRUN_OUT="$DIR/inner" "$RUN" $WORK 2>/dev/null)
		events=$(trace-cmd report -i "$DIR/t.dat" 2>/dev/null | grep -c ' sched_\(wakeup\|switch\):' || true)
		# what the kernel's buffers overwrote or dropped; --stat's
		# "entries" are what the buffers held when the stats were
		# read, before trace-cmd's last flush, and are in the file
		# (scripts/bench-tracefs-vm.sh checks them against the kernel)
		lost=$(trace-cmd report --stat -i "$DIR/t.dat" 2>/dev/null |
		       awk '$1 == "overrun:" || ($1 == "commit" && $2 == "overrun:") ||
			    ($1 == "dropped" && $2 == "events:") { n += $NF } END { print n + 0 }')
		bytes=$(stat -c %s "$DIR/t.dat")
		;;
	esac
	[ -s "$DIR/inner" ] || { echo "bench-tracefs: round $i, $name: the workload never ran ($outer)" >&2; exit 1; }
	inner=$(cat "$DIR/inner")
	wall=$(field "$inner" wall_s)
	# trace-cmd exits 1 here after writing its file (see above); the workload must not fail
	if [ "$(field "$inner" status)" != 0 ] || [ "${events:-0}" -le 0 ] ||
	   { [ "$name" = gpuprobe ] && [ "$(field "$outer" status)" != 0 ]; }; then
		echo "bench-tracefs: round $i, $name failed: recorder $outer, workload $inner, $events events" >&2
		exit 1
	fi
	rcpu=$(awk -v o="$(cpu "$outer")" -v i="$(cpu "$inner")" 'BEGIN { printf "%.3f", o - i }')
	echo "$name: $events events, $lost lost, workload $wall s, recorder CPU $rcpu s, $bytes bytes"
	put "${name}_events" "$events"
	put "${name}_lost" "$lost"
	put "${name}_rate" "$(awk -v n="$events" -v w="$wall" 'BEGIN { printf "%.0f", n / w }')"
	put "${name}_cpu_us_per_event" "$(awk -v c="$rcpu" -v n="$events" 'BEGIN { printf "%.3f", c * 1e6 / n }')"
	put "${name}_slowdown" "$(awk -v w="$wall" -v b="$base" 'BEGIN { printf "%.3f", w / b }')"
	put "${name}_bytes_per_event" "$(awk -v s="$bytes" -v n="$events" 'BEGIN { printf "%.1f", s / n }')"
}

echo "workload: $WORK; $ROUNDS rounds: none, gpuprobe-trace (tracefs), trace-cmd record"
for i in $(seq "$ROUNDS"); do
	echo "round $i of $ROUNDS"
	r=$($RUN $WORK)
	[ "$(field "$r" status)" = 0 ] || { echo "bench-tracefs: round $i: $WORK failed ($r)" >&2; exit 1; }
	base=$(field "$r" wall_s)
	put none_wall "$base"
	echo "none: workload $base s"
	# the order alternates, so neither recorder always runs after the other
	if [ $((i % 2)) -eq 1 ]; then
		record_round gpuprobe
		record_round trace-cmd
	else
		record_round trace-cmd
		record_round gpuprobe
	fi
done

ci() { $STAT "$SAMPLES" stat "$1" | awk '{ printf "%s [%s, %s]", $1, $2, $3 }'; }
ratio() { $STAT "$SAMPLES" ratio "$1" "$2" | awk '{ printf "%s [%s, %s]", $1, $2, $3 }'; }
total() { awk -v k="$1" '$1 == k { n += $2 } END { print n + 0 }' "$SAMPLES"; }
row() {	# label name
	echo "| $1 | $(ci "$2_events") | $(total "$2_lost") | $(ci "$2_rate") | $(ci "$2_cpu_us_per_event") | $(ci "$2_slowdown") | $(ci "$2_bytes_per_event") |"
}

{
	echo "# tracefs source against trace-cmd record: benchmark"
	echo
	echo "Generated by \`make -C user bench-tracefs\` (user/tests/bench_tracefs.sh) on $(date -u +%Y-%m-%d),"
	echo "$(nproc) CPUs, kernel $(uname -r), $(trace-cmd --version 2>&1 | grep -m1 version),"
	echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared)."
	echo
	echo "Workload: \`$WORK\`; both recorders follow its tasks (set_event_pid + event-fork) and"
	echo "record sched_wakeup and sched_switch; gpuprobe-trace also its target $BDF's interrupts."
	echo "$ROUNDS rounds, the recorders' order alternating; median and bootstrap 95% interval"
	echo "(scripts/benchstat.py).  Recorder CPU: the recorder's process tree minus the workload"
	echo "(measured inside it), per event recorded: what wait4() reports for the recorder's tree"
	echo "(its threads and the children it reaps); the cost of writing events into the kernel's"
	echo "buffers falls on the workload, for both, and shows as its slowdown.  Lost: summed over all rounds; for trace-cmd"
	echo "what its --stat says the kernel's buffers overwrote (overrun, commit overrun) or dropped."
	echo
	echo "| recorder | events recorded | lost (all rounds) | events/s | recorder CPU µs per event | workload slowdown | bytes per event |"
	echo "|---|---|---|---|---|---|---|"
	row "\`gpuprobe-trace record --source tracefs\`" gpuprobe
	row "\`trace-cmd record -F -c\`" trace-cmd
	echo
	echo "Workload alone: $(ci none_wall) s."
	echo
	echo "Ratios, gpuprobe-trace / trace-cmd (median of the per-round ratios' bootstrap):"
	echo "recorder CPU per event $(ratio gpuprobe_cpu_us_per_event trace-cmd_cpu_us_per_event),"
	echo "events/s $(ratio gpuprobe_rate trace-cmd_rate),"
	echo "workload slowdown $(ratio gpuprobe_slowdown trace-cmd_slowdown)."
	echo
	echo "Command: \`make -C user bench-tracefs\` (BENCH_ROUNDS=$ROUNDS BENCH_PIPE_LOOPS=$LOOPS)."
} >"$OUT"
cat "$OUT"
