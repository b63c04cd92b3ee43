#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpuprobe-trace in a container (issue 25), the module loaded by the host:
# inside network, pid and mount namespaces of its own `record` counts edu's
# interrupts as /proc/interrupts does, and `info` says what is missing
# where something is -- the module on the host, CAP_NET_ADMIN, or the
# host's user namespace -- and what to do.
. /gpuprobe/tests/ktap.sh
for m in gpuprobe_edu gpuprobe; do
	grep -q "^$m " /proc/modules && rmmod $m
done
if ! unshare -n true 2>/dev/null; then
	echo "1..0 # SKIP no network namespaces here (CONFIG_NET_NS)"
	exit 4
fi
insmod /gpuprobe/gpuprobe_edu.ko || exit 1
EDU=$(basename "$(dirname "$(grep -l 0x11e8 /sys/bus/pci/devices/*/device)")")
CTL=/sys/kernel/debug/gpuprobe_edu/$EDU
proc_edu() {
	awk '/gpuprobe_edu/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i }
	     END { print s + 0 }' /proc/interrupts
}
say() { echo "$1" | sed 's/^/# /'; }
# has TEXT PATTERN [PATTERN]: every pattern is in the text
has() { echo "$1" | grep -q "$2" && { [ -z "$3" ] || echo "$1" | grep -q "$3"; }; }
# failed_saying STATUS TEXT PATTERN: a failure that says PATTERN
failed_saying() { [ "$1" != 0 ] && has "$2" "$3"; }

# 1. not loaded: a container cannot see why from netlink alone
out=$(unshare -n gpuprobe-trace info 2>&1)
say "$out"
check info_in_a_netns_without_the_module_says_not_loaded \
	has "$out" "^module source: not available: module not loaded"

insmod /gpuprobe/gpuprobe.ko "target=$EDU" || exit 1
ver=$(cat /sys/module/gpuprobe/version)

# 2. a container with its own network (a pod without hostNetwork), root
out=$(unshare -n gpuprobe-trace info 2>&1)
say "$out"
check info_in_a_netns_sees_the_module_and_may_control \
	has "$out" "^module source: gpuprobe $ver" \
	"control ops (START, STOP, TARGET_ADD/DEL, TGID_ADD/DEL: [^)]*): permitted (CAP_NET_ADMIN in the host's user namespace)"
# which checks root passes, each named by what it guards: the events group
# (privileged where the kernel has GENL_MCAST_CAP_SYS_ADMIN: caps mcast_priv)
# and the records with addresses; the queries are everyone's
if has "$out" "^  caps .* mcast_priv"; then
	EVENTS_ROOT="events group (the records of record and serve): permitted (joined: CAP_SYS_ADMIN)"
	EVENTS_NOBODY="events group (the records of record and serve): not permitted: joining needs CAP_SYS_ADMIN"
else
	EVENTS_ROOT="events group (the records of record and serve): unicast to the socket that sent START"
	EVENTS_NOBODY=$EVENTS_ROOT
fi
check info_names_each_privilege_root_has \
	sh -c 'echo "$1" | grep -qF "$2" && echo "$1" | grep -qF "DMA/IOMMU records: permitted (CAP_SYS_ADMIN)" &&
		echo "$1" | grep -qF "queries (GET_INFO, TARGET_GET, STATS_GET, SUMMARY_GET: info, targets, counters): open to every user"' \
	_ "$out" "$EVENTS_ROOT"

# 3. record there: network, pid and mount namespaces (its own /proc)
p0=$(proc_edu)
unshare -n -p -f -m --mount-proc sh -c "gpuprobe-trace record -q --source module --no-inject \
	-d $EDU -o /tmp/netns.trace -- sh -c 'echo 200 > $CTL/irq'" >/tmp/netns.rec 2>&1
rc=$?
delta=$(($(proc_edu) - p0))
# shellcheck disable=SC2020 # each of the five characters ends a line
got=$(gpuprobe-trace report --json /tmp/netns.trace 2>/dev/null | tr ',{}[]' '\n\n\n\n\n' |
	awk '$1 == "\"irq_count\":" { print $2; exit }')
say "$(cat /tmp/netns.rec)"
echo "# record in a container: exit $rc, $got interrupts recorded, /proc/interrupts $delta"
check record_in_a_container_counts_exactly [ "$rc" = 0 ] && [ "$delta" = 200 ] && [ "$got" = "$delta" ]

# 4. a user namespace of its own (rootless/user-namespaced container)
out=$(unshare -U -r -n gpuprobe-trace info 2>&1)
say "$out"
check info_in_a_user_namespace_names_the_missing_privilege \
	has "$out" "control ops (START, STOP, TARGET_ADD/DEL, TGID_ADD/DEL: [^)]*): not permitted: .*CAP_NET_ADMIN in the host.s (initial) user namespace.*user namespace of its own" \
	"DMA/IOMMU records: not permitted: not from a user namespace"
out=$(unshare -U -r -n gpuprobe-trace record -q --source module --no-inject -d "$EDU" \
	-o /tmp/uns.trace -- true 2>&1)
rc=$?
say "$out"
check record_in_a_user_namespace_fails_and_says_why \
	failed_saying "$rc" "$out" "user namespace of its own"

# 5. no CAP_NET_ADMIN at all (nobody, in the host's namespaces)
out=$(as_nobody gpuprobe-trace info 2>&1)
say "$out"
check info_without_cap_net_admin_says_so \
	has "$out" "not permitted: control ops need CAP_NET_ADMIN, which this process does not have"
check info_without_capabilities_names_each_missing_one \
	sh -c 'echo "$1" | grep -qF "$2" &&
		echo "$1" | grep -qF "DMA/IOMMU records: not permitted: DMA and IOMMU records need CAP_SYS_ADMIN or CAP_PERFMON, which this process does not have"' \
	_ "$out" "$EVENTS_NOBODY"

# 6. a container without the host's tracefs mounted in: none in its mount
# table, and an empty /sys/kernel (libtracefs mounts one where it can)
# shellcheck disable=SC2016 # $m is the inner shell's
out=$(unshare -m sh -c 'for m in /sys/kernel/debug/tracing /sys/kernel/tracing /sys/kernel/debug; do
		! grep -q " $m " /proc/mounts || umount "$m" || exit 1
	done
	mount -t tmpfs none /sys/kernel && gpuprobe-trace info' 2>&1)
say "$(echo "$out" | grep '^tracefs')"
check info_without_tracefs_says_what_to_mount \
	has "$out" "^tracefs source: not available: tracefs is not mounted.*hostPath volume of /sys/kernel/tracing"

rmmod gpuprobe
rmmod gpuprobe_edu
finish
