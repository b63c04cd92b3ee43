#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The tracefs source inside a container (issue 25) on this machine: mount,
# pid and network namespaces of its own (unshare), tracefs unmounted and no
# CAP_SYS_ADMIN to mount it again (Docker's default), and the host's
# tracefs bind-mounted back at /sys/kernel/tracing (a hostPath volume).  record --
# a workload of 25 timed reads, no fork: the wake-ups of the workload's own
# pid as the container sees it ($$ inside) are as many as the same
# workload's recorded on the host (their pids the host's own), and at least
# 25; the disk's irq records equal the kernel's count over the run; the
# instances are named by the kernel's pid, so a run in the container leaves
# a host run beside it alone.  Without the bind mount, info and record say
# that tracefs is missing and name the hostPath mount.  And in a user
# namespace of its own, root mapped to the host's root, the same works
# (tracefs checks file modes only); mapped to another uid it cannot open it.
. "$(dirname "$0")/common.sh"
need_tracefs_disk "tracefs in a container"
if ! command -v bash >/dev/null || ! command -v setpriv >/dev/null || ! unshare --mount --pid --fork --net --mount-proc true 2>/dev/null; then
	skip "tracefs in a container" "no bash or setpriv, or unshare cannot make mount, pid and network namespaces here"
	finish
fi
T=$(mktemp -d /var/tmp/gpuprobe-ctr.XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
mkfifo "$T/fifo"
N=25
# the workload: N timed reads of a fifo no one writes (each one timer
# wake-up), no fork (an arithmetic loop, not $(seq)); its pid as it sees it
WL="echo \$\$ > \$OUT.pid; for ((i = 0; i < $N; i++)); do read -t 0.02 x <&3; done 3<>'$T/fifo'; true"
# a container's view of the kernel, as Docker's default gives it: no
# tracefs mounted, and no CAP_SYS_ADMIN to mount one (libtracefs tries);
# with BIND=1 the host's mounted in at /sys/kernel/tracing.  Where a mount
# cannot go (a user namespace's are locked) a tmpfs hides it.
cat >"$T/container.sh" <<EOF
mkdir -p "$T/host-tracing"
mount --bind "$TRACING" "$T/host-tracing" || exit 9
for m in /sys/kernel/debug/tracing /sys/kernel/tracing /sys/kernel/debug; do
	! grep -q " \$m " /proc/mounts || umount -l "\$m" 2>/dev/null || mount -t tmpfs none "\$m" || exit 9
done
if [ "\$BIND" = 1 ]; then
	mount --bind "$T/host-tracing" /sys/kernel/tracing || exit 9
fi
umount -l "$T/host-tracing"
exec setpriv --bounding-set -sys_admin --inh-caps -sys_admin -- "\$@"
EOF
in_container() {	# BIND OUT CMD...: CMD inside, stdout and stderr in OUT.err
	bind=$1
	out=$2
	shift 2
	BIND=$bind OUT=$out unshare --mount --pid --fork --net --mount-proc sh "$T/container.sh" "$@" \
		>"$out.err" 2>&1
}
# near N HOST: the count N is at least the workload's $N timed reads and
# within 2 of the host run's HOST.  Not exact: under load a run's workload
# is now and then woken once more or less than another's (27 against 26,
# once in four to six runs at load average 4: a contended sleeping lock as
# two start together, a read's timer firing before it sleeps); a run that
# lost its pid translation has none, a shared instance about twice as many.
rc_near() { [ "$1" -eq 0 ] && near "$2" "$3"; }
near() { sh -c '[ "$1" -ge "$3" ] && [ "$1" -ge $(($2 - 2)) ] && [ "$1" -le $(($2 + 2)) ]' _ "$1" "$2" "$N"; }

# own_wakeups TRACE PID: wake-up records whose woken pid is PID
own_wakeups() {
	"$GPT" export --csv "$1.csv" "$1" && awk -F, -v p="$2" '$1 == "wakeup" && $16 == p { n++ } END { print n + 0 }' "$1.csv"
}

# ---- with the host's tracefs mounted in ----
in_container 1 "$T/info" "$GPT" info
check "container with tracefs bind-mounted: info finds it at /sys/kernel/tracing" \
	grep -q "^tracefs source: /sys/kernel/tracing$" "$T/info.err"

OUT=$T/host bash -c "$WL" &	# warm the page cache for both runs alike
wait
OUT=$T/host "$GPT" record -q --source tracefs -d "$BDF" -o "$T/host.trace" -- bash -c "$WL"
check "on the host: record -- the workload exits 0" [ $? -eq 0 ]
in_container 1 "$T/ctr" "$GPT" record -q --source tracefs -d "$BDF" -o "$T/ctr.trace" -- bash -c "$WL"
rc=$?
sed 's/^/    container: /' "$T/ctr.err"
check "in the container: record -- the workload exits 0" [ $rc -eq 0 ]
host_n=$(own_wakeups "$T/host.trace" "$(cat "$T/host.pid")")
ctr_pid=$(cat "$T/ctr.pid")
ctr_n=$(own_wakeups "$T/ctr.trace" "$ctr_pid")
echo "    workload's own wake-ups: $host_n on the host (pid $(cat "$T/host.pid")), $ctr_n in the container (pid $ctr_pid there)"
check "in the container: the workload's wake-ups carry its pid as the container sees it ($ctr_pid), as many as on the host (within 2), at least $N" \
	near "$ctr_n" "$host_n"
"$GPT" report --json "$T/ctr.trace" >"$T/ctr.json"
python3 - "$T/ctr.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
vecs = d["targets"][0]["vectors"]
print("    container: disk irqs: kernel delta %d, records in window %d" % (
	sum(v["kernel_count"]["delta"] for v in vecs), sum(v["kernel_count"]["records_in_window"] for v in vecs)))
sys.exit(0 if vecs and all(v["kernel_count"]["match"] for v in vecs) and d["drops"]["lost"] == 0 else 1)
PY
check "in the container: irq records == /proc/interrupts delta over the recording, none lost" [ $? -eq 0 ]

# both exit 0, both counts near the host's, and twice N beyond them
two_near() { [ "$1 $2" = "0 0" ] && near "$3" "$5" && near "$4" "$5" && [ $(($5 + 2)) -lt $((2 * N)) ]; }
# two containers at once, whose recorders have the same pid there: each
# has instances of its own (named by the kernel's pid), so each trace holds
# its own workload's wake-ups, as many as on the host (within 2: near()),
# and not the other's (a shared instance would hold about twice as many).
in_container 1 "$T/a" "$GPT" record -q --source tracefs -d "$BDF" -o "$T/a.trace" -- bash -c "$WL" &
a=$!
in_container 1 "$T/b" "$GPT" record -q --source tracefs -d "$BDF" -o "$T/b.trace" -- bash -c "$WL" &
b=$!
wait $a
arc=$?
wait $b
brc=$?
a_n=$(own_wakeups "$T/a.trace" "$(cat "$T/a.pid")")
b_n=$(own_wakeups "$T/b.trace" "$(cat "$T/b.pid")")
sed 's/^/    container a: /' "$T/a.err"
sed 's/^/    container b: /' "$T/b.err"
echo "    two containers at once: exit $arc and $brc; own wake-ups $a_n (pid $(cat "$T/a.pid")) and $b_n (pid $(cat "$T/b.pid")), $host_n on the host"
check "two containers recording at once: each trace has its own workload's wake-ups, as many as on the host (within 2), not the other's" \
	two_near "$arc" "$brc" "$a_n" "$b_n" "$host_n"

# a host run beside it: the container's run must not take its instance
# for a killed run's (named by a pid the container cannot see; the kernel
# refuses to remove an instance whose buffers are open, too)
"$GPT" record -q --source tracefs -d "$BDF" -o "$T/beside.trace" --duration 3 2>"$T/beside.err" &
beside=$!
sleep 1
in_container 1 "$T/ctr2" "$GPT" record -q --source tracefs -d "$BDF" -o "$T/ctr2.trace" -- true
ctr2=$?
alive=$(ls "$TRACING/instances" | grep -c "^gpuprobe-$beside\$")
wait $beside
brc=$?
check "a container's run (exit $ctr2) leaves the host's run beside it its instance (gpuprobe-$beside: $alive)" \
	sh -c '[ "$1" = 0 ] && [ "$2" = 1 ]' _ "$ctr2" "$alive"
check "the host's run beside it completes (exit 0)" [ "$brc" -eq 0 ]
check "no instance left: none named by a container's pid, no scratch one" \
	sh -c '! ls "$1/instances" | grep -q "^gpuprobe-pidns-\|^gpuprobe-[0-9]*-pidns\|^gpuprobe-[0-9]-\|^gpuprobe-[0-9]$"' _ "$TRACING"

# serve --pid of an already-running process in the container: its kernel
# pid is not known there, and it must not be sent the probe signal to
# learn it (httpd and nginx stop gracefully on SIGWINCH): refused, and the
# process, which traps SIGWINCH, gets none
cat >"$T/serve-pid.sh" <<EOF
bash -c 'trap "echo winch >> \$OUT.winch" WINCH; echo \$\$ > \$OUT.tpid; while :; do sleep 0.05; done' &
while [ ! -s "\$OUT.tpid" ]; do sleep 0.05; done
timeout 10 "$GPT" serve -q --source tracefs -d "$BDF" --listen 127.0.0.1:0 --pid "\$(cat "\$OUT.tpid")"
echo "serve exit \$?"
sleep 0.5
kill \$!
EOF
in_container 1 "$T/srv" sh "$T/serve-pid.sh"
sed 's/^/    container: /' "$T/srv.err"
check "in the container: serve --pid of a running process with the tracefs source is refused, says why" \
	sh -c 'grep -q "^serve exit [1-9]" "$1.err" && grep -q -- "--pid with the tracefs source in a pid namespace of its own" "$1.err"' _ "$T/srv"
check "in the container: serve --pid sends the running process no SIGWINCH" [ ! -e "$T/srv.winch" ]

# the recorder started with SIGWINCH blocked (its caller's mask): the
# command starts with no signal blocked, and none pending (the probe's
# SIGWINCH is not handed to it)
in_container 1 "$T/mask" python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGWINCH])
os.execvp(sys.argv[1], sys.argv[1:])' "$GPT" record -q --source tracefs -d "$BDF" -o "$T/mask.trace" -- \
	grep -E "^(SigBlk|SigPnd|ShdPnd):" /proc/self/status	# grep, not sh: dash clears the mask itself
rc=$?
grep -E "^(SigBlk|SigPnd|ShdPnd):" "$T/mask.err" >"$T/mask.status"
sed 's/^/    workload: /' "$T/mask.err"
check "in the container, SIGWINCH blocked by the recorder's caller: the workload starts with none blocked or pending (exit $rc)" \
	sh -c '[ "$1" -eq 0 ] && [ "$(grep -c ":[[:space:]]*0*$" "$2")" -eq 3 ]' _ $rc "$T/mask.status"

# scratch instances: a killed run's ("gpuprobe-<pid>-pidns-<nonce>",
# here made as it leaves them) is removed by the next run, in the
# container or on the host; a live run's (a file of it held open) is not
for n in 2-pidns-99 3-pidns-98; do mkdir "$TRACING/instances/gpuprobe-$n" || exit 9; done
exec 7<"$TRACING/instances/gpuprobe-3-pidns-98/tracing_on"
in_container 1 "$T/sweep" "$GPT" record -q --source tracefs -d "$BDF" -o "$T/sweep.trace" -- true
rc=$?
killed=$(ls "$TRACING/instances" | grep -c "^gpuprobe-2-pidns-99$")
live=$(ls "$TRACING/instances" | grep -c "^gpuprobe-3-pidns-98$")
exec 7<&-
mkdir "$TRACING/instances/gpuprobe-2-pidns-97" || exit 9
"$GPT" record -q --source tracefs -d "$BDF" -o "$T/sweep2.trace" -- true
rc2=$?
host_left=$(ls "$TRACING/instances" | grep -c "^gpuprobe-[23]-pidns-9")
for n in 2-pidns-99 3-pidns-98 2-pidns-97; do rmdir "$TRACING/instances/gpuprobe-$n" 2>/dev/null; done
check "a killed run's scratch instance is removed by the next run in a container (exit $rc; left $killed), a live one's kept ($live)" \
	sh -c '[ "$1 $2 $3" = "0 0 1" ]' _ $rc "$killed" "$live"
check "a killed run's scratch instance is removed by the next run on the host (exit $rc2; left $host_left)" \
	sh -c '[ "$1 $2" = "0 0" ]' _ $rc2 "$host_left"

# ---- without it ----
in_container 0 "$T/noinfo" "$GPT" info
check "container without tracefs: info says it is not mounted and names the hostPath mount" \
	grep -q "^tracefs source: not available: tracefs is not mounted (.*hostPath volume of /sys/kernel/tracing in Kubernetes, docker run -v /sys/kernel/tracing:/sys/kernel/tracing)" "$T/noinfo.err"
in_container 0 "$T/norec" "$GPT" record -q --source tracefs -d "$BDF" -o "$T/norec.trace" -- true
rc=$?
sed 's/^/    container without tracefs: /' "$T/norec.err"
check "container without tracefs: record fails, says tracefs is not mounted and names the hostPath mount" \
	sh -c '[ "$1" -ne 0 ] && grep -q "tracefs is not mounted (.*hostPath volume of /sys/kernel/tracing" "$2"' \
	_ $rc "$T/norec.err"

# ---- a user namespace of its own ----
if unshare --user --map-root-user true 2>/dev/null; then
	BIND=1 OUT=$T/uns unshare --user --map-root-user --mount --pid --fork --net --mount-proc \
		sh "$T/container.sh" "$GPT" record -q --source tracefs -d "$BDF" -o "$T/uns.trace" -- bash -c "$WL" \
		>"$T/uns.err" 2>&1
	rc=$?
	uns_n=$(own_wakeups "$T/uns.trace" "$(cat "$T/uns.pid")")
	echo "    user namespace, root mapped to root: exit $rc, $uns_n own wake-ups (pid $(cat "$T/uns.pid"))"
	check "user namespace with root mapped to the host's root: record works, the workload's wake-ups as on the host (within 2)" \
		rc_near "$rc" "$uns_n" "$host_n"
	(cd / && BIND=1 OUT=$T/remap setpriv --reuid=65534 --regid=65534 --clear-groups \
		unshare --user --map-root-user "$GPT" info >"$T/remap.err" 2>&1)
	sed -n 's/^\(tracefs source.*\)/    root mapped to uid 65534: \1/p' "$T/remap.err"
	check "user namespace with root mapped to another uid: tracefs not usable, the host root's files, says to use the host's user namespace" \
		grep -q "^tracefs source: not usable: .*belong to the host's root.*user namespace of its own.*--userns=host; Kubernetes hostUsers: true" "$T/remap.err"
else
	skip "tracefs in a user namespace" "user namespaces are off here"
fi
finish
