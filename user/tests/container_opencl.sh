#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The paper's LXC row for OpenCL (issue 25 item 3): `probe --api opencl`
# (PoCL, this machine's CPU device) on the host and inside two containers
# made with unshare -- network, pid (with its own /proc), mount, UTS, IPC
# and cgroup namespaces; and the same with a user namespace of its own,
# root mapped to the host's root -- ROUNDS times each, interleaved, then
# `compare` of each container run against the host run of its round.
# Checks: the containers are containers (every namespace differs from the
# host's, read from /proc/self/ns inside, and the probe's pid there is 1's
# child); each run sees the same OpenCL device; compare has a row for every
# probe of the host's run and none without a counterpart.  The table is
# printed as "# " lines (Documentation/results/containers-2026-12-02/).
# usage: container_opencl.sh [ROUNDS] [--full]   (default 2 rounds, --quick)
# environment: KEEP=DIR keeps every run's files there (the results' table)
. "$(dirname "$0")/common.sh"
ROUNDS=${1:-2}
QUICK=--quick
[ "${2:-}" = --full ] && QUICK=
TOOL=$(cd "$(dirname "$0")/.." && pwd)/gpuprobe-trace
NS="net pid mnt uts ipc cgroup"
UNSHARE="unshare --mount --pid --fork --mount-proc --net --uts --ipc --cgroup"

if ! $UNSHARE true 2>/dev/null; then
	skip "OpenCL probe in a container" "unshare cannot make the namespaces here (not root?)"
	finish
fi
T=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && cp "$T"/* "$KEEP"/; rm -rf "$T"' EXIT
if ! "$TOOL" probe --api opencl --quick --json -o "$T/try.json" >"$T/try.txt" 2>&1 ||
   ! grep -q '"status": *"ok"' "$T/try.json"; then
	skip "OpenCL probe in a container" "no OpenCL platform here ($(tail -n1 "$T/try.txt"))"
	finish
fi
USERNS=
unshare --user --map-root-user true 2>/dev/null && USERNS="--user --map-root-user"

for ns in $NS; do readlink "/proc/self/ns/$ns"; done >"$T/host.ns"
# inside: the namespaces, the shell's pid (1 in a pid namespace of its own), then the probe
cat >"$T/inside.sh" <<EOF
for ns in $NS; do readlink /proc/self/ns/\$ns; done >"\$1.ns"
echo \$\$ >"\$1.pid"
exec "$TOOL" probe --api opencl $QUICK --json -o "\$1.json" >"\$1.txt" 2>&1
EOF
# the probes' names of a probe JSON's OpenCL run (not its phases')
probes() {
	python3 -c 'import json, sys
for a in json.load(open(sys.argv[1]))["apis"]:
	if a["api"] == "opencl":
		print("\n".join(p["name"] for p in a["probes"]))' "$1"
}
device() { sed -n 's/.*"device": *"\([^"]*\)".*/\1/p' "$1" | head -n1; }

r=1
while [ "$r" -le "$ROUNDS" ]; do
	"$TOOL" probe --api opencl $QUICK --json -o "$T/base$r.json" >"$T/base$r.txt" 2>&1
	check "round $r: the host's probe exits 0" [ $? -eq 0 ]
	$UNSHARE sh "$T/inside.sh" "$T/ctr$r"
	check "round $r: the container's probe exits 0" [ $? -eq 0 ]
	sides="ctr"
	if [ -n "$USERNS" ]; then
		# shellcheck disable=SC2086 # the options
		unshare $USERNS --mount --pid --fork --mount-proc --net --uts --ipc --cgroup \
			sh "$T/inside.sh" "$T/userns$r"
		check "round $r: the user namespace's probe exits 0" [ $? -eq 0 ]
		sides="ctr userns"
	fi
	for s in $sides; do
		check "round $r: $s: every namespace ($NS) differs from the host's" \
			sh -c 'paste -d" " "$1" "$2" | awk "\$1 == \$2 { bad = 1 } END { exit bad || NR != 6 }"' \
			_ "$T/host.ns" "$T/$s$r.ns"
		check "round $r: $s: the shell is pid 1 of its pid namespace" [ "$(cat "$T/$s$r.pid")" = 1 ]
		check "round $r: $s: the same OpenCL device as the host's" \
			[ -n "$(device "$T/base$r.json")" -a "$(device "$T/base$r.json")" = "$(device "$T/$s$r.json")" ]
		"$TOOL" compare "$T/base$r.json" "$T/$s$r.json" >"$T/cmp-$s$r.txt" 2>&1
		check "round $r: $s: compare exits 0" [ $? -eq 0 ]
		missing=$(probes "$T/base$r.json" |
			while read -r p; do grep -q "^  $p " "$T/cmp-$s$r.txt" || echo "$p"; done)
		check "round $r: $s: a compare row for every probe of the host's run${missing:+ (missing: $missing)}" \
			[ -z "$missing" ]
		check "round $r: $s: no probe without a counterpart" \
			sh -c '! grep -q "no counterpart" "$1"' _ "$T/cmp-$s$r.txt"
		sed "s/^/# round $r $s: /" "$T/cmp-$s$r.txt"
	done
	r=$((r + 1))
done
finish
