#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --cgroup PATH: what is not a cgroup v2 directory is refused before
# anything is recorded, exit 2, with what it is and what to do.  The
# expectations come from the paths made or found here (mktemp, /proc/mounts).
. "$(dirname "$0")/common.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

refused() {	# NAME PATTERN ARGS...: exit 2 and PATTERN on stderr, no trace written
	name=$1
	pat=$2
	shift 2
	(cd "$T" && "$GPT" record -q -o "$T/out.trace" "$@" >/dev/null 2>"$T/err")
	check "$name" sh -c '[ "$1" -eq 2 ] && grep -q -- "$2" "$3" && ! [ -e "$4" ]' \
		_ $? "$pat" "$T/err" "$T/out.trace"
}

refused "--cgroup of a path that does not exist: no such cgroup, named in full" \
	"--cgroup $T/none: no such cgroup" --cgroup "$T/none" --duration 1
refused "--cgroup '': empty path" "empty path" --cgroup "" --duration 1
refused "--cgroup of a directory outside cgroupfs: not in a cgroup v2 filesystem" \
	"--cgroup $T: not in a cgroup v2 filesystem" --cgroup "$T" --duration 1
(cd "$T" && "$GPT" record -q -o "$T/out.trace" --cgroup "$T" --duration 1 >/dev/null 2>"$T/err")
check "--cgroup outside cgroupfs: suggests a cgroup2 mount of its own (/mnt/cgroup2), not one over /sys/fs/cgroup" \
	sh -c 'grep -q "mkdir -p /mnt/cgroup2 && mount -t cgroup2 none /mnt/cgroup2" "$1" &&
		! grep -q "mount -t cgroup2 none /sys/fs/cgroup" "$1"' _ "$T/err"
refused "--cgroup with --source tracefs: the same check" \
	"--cgroup $T: not in a cgroup v2 filesystem" --cgroup "$T" --source tracefs --duration 1
refused "--cgroup with no argument: usage error" "" --cgroup
# past PATH_MAX (4096) with the root before it: refused as too long, not looked up
long=$(printf '%04200d' 0)
refused "--cgroup of a path longer than PATH_MAX: path too long" \
	"--cgroup /$long: path too long" --cgroup "/$long" --duration 1
refused "--cgroup of a relative path longer than PATH_MAX under the root: path too long" \
	"--cgroup $long: path too long" --cgroup "$long" --duration 1

v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -n "$v2" ] && [ -e "$v2/cgroup.procs" ]; then
	refused "--cgroup of a cgroup's file, not its directory: not a directory" \
		"not a directory" --cgroup "$v2/cgroup.procs" --duration 1
	# a real v2 cgroup passes the check: what stops it next is the module, not the path
	(cd "$T" && "$GPT" record -q -o "$T/out.trace" --cgroup "$v2" --duration 1 >/dev/null 2>"$T/err")
	rc=$?
	check "--cgroup of a cgroup v2 directory ($v2) is accepted (any refusal is not about the path)" \
		sh -c '! grep -q -- "--cgroup" "$1" && [ "$2" -ne 2 ]' _ "$T/err" "$rc"
else
	skip "--cgroup of a cgroup v2 file / directory" "no cgroup2 mounted here"
fi

# The 0:: line of /proc/PID/cgroup ("0::/a/b") is relative to the cgroup2
# mount, not to /: as --cgroup it names the cgroup its process is in.
if [ -n "$v2" ] && [ "$(id -u)" -eq 0 ] && mkdir "$v2/gpuprobe-args.$$" 2>/dev/null; then
	sh -c "echo \$\$ > '$v2/gpuprobe-args.$$/cgroup.procs' && exec sleep 30" &
	sleeper=$!
	sleep 0.2
	line=$(grep '^0::' "/proc/$sleeper/cgroup")
	(cd "$T" && "$GPT" record -q -o "$T/out.trace" --cgroup "${line#0::}" --duration 1 \
		>/dev/null 2>"$T/err")
	rc=$?
	echo "    a process in $v2/gpuprobe-args.$$: $line; record --cgroup ${line#0::}: exit $rc, $(head -c 300 "$T/err")"
	check "--cgroup of a 0:: line (${line#0::}) names that cgroup: accepted, not refused as a path" \
		sh -c '[ "$1" = "0::/gpuprobe-args.$2" ] && ! grep -q -- "--cgroup" "$3" && [ "$4" -ne 2 ]' \
		_ "$line" $$ "$T/err" "$rc"
	refused "--cgroup of a 0:: path that is no cgroup: no such cgroup, both places named" \
		"--cgroup /gpuprobe-none.$$: no such cgroup: no such directory, nor $v2/gpuprobe-none.$$" \
		--cgroup "/gpuprobe-none.$$" --duration 1
	kill "$sleeper"
	wait "$sleeper" 2>/dev/null
	rmdir "$v2/gpuprobe-args.$$"
else
	skip "--cgroup of a 0:: line" "no writable cgroup2 here (or not root)"
fi

v1=$(awk '$3 == "cgroup" { print $2; exit }' /proc/mounts)
if [ -n "$v1" ]; then
	refused "--cgroup of a cgroup v1 hierarchy ($v1): only v2, says how" \
		"a cgroup v1 hierarchy: only cgroup v2 can be followed" --cgroup "$v1" --duration 1
else
	skip "--cgroup of a cgroup v1 hierarchy" "none mounted here"
fi

# Relative paths: under /sys/fs/cgroup, or under /sys/fs/cgroup/unified in
# systemd's hybrid layout (v1 at the top, v2 at unified/).  The layouts are
# made here in a mount namespace of their own (unshare -m: private mounts,
# the machine's own left alone): a tmpfs over /sys/fs/cgroup, a cgroup2 or
# a plain directory at unified/.  TMPFS_MAGIC is 0x01021994 (linux/magic.h).
layout() {	# layout NAME UNIFIED(cgroup2|dir|none) ARGS...: exit and stderr in $T/lay.rc, $T/lay.err
	what=$1
	shift
	unshare -m sh -c '
		u=$1; shift
		mount -t tmpfs gpuprobe-test /sys/fs/cgroup || exit 99
		case $u in
		cgroup2) mkdir /sys/fs/cgroup/unified &&
			 mount -t cgroup2 none /sys/fs/cgroup/unified || exit 99 ;;
		dir) mkdir -p /sys/fs/cgroup/unified/gpuprobe-rel || exit 99 ;;
		esac
		cd "$0" && exec "$@"' "$T" "$what" "$GPT" record -q -o "$T/out.trace" --duration 1 "$@" \
		>/dev/null 2>"$T/lay.err"
	echo $? >"$T/lay.rc"
}
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	layout cgroup2 --cgroup gpuprobe-none
	check "hybrid layout (v2 at /sys/fs/cgroup/unified): a relative path is taken under unified/" \
		sh -c '[ "$(cat "$1")" -eq 2 ] && grep -q -- "--cgroup /sys/fs/cgroup/unified/gpuprobe-none: no such cgroup (a relative path is taken under /sys/fs/cgroup/unified;" "$2"' \
		_ "$T/lay.rc" "$T/lay.err"
	# cgroup2 is one hierarchy: mounted again in the namespace it is the
	# machine's, so the cgroup is made (and removed) in the machine's own
	if [ -n "$v2" ] && mkdir "$v2/gpuprobe-rel.$$"; then
		layout cgroup2 --cgroup "gpuprobe-rel.$$"
		rmdir "$v2/gpuprobe-rel.$$"
		check "hybrid layout: a relative cgroup under unified/ is accepted (any refusal is not about the path)" \
			sh -c '[ "$(cat "$1")" -ne 99 ] && [ "$(cat "$1")" -ne 2 ] && ! grep -q -- "--cgroup" "$2"' \
			_ "$T/lay.rc" "$T/lay.err"
	else
		skip "hybrid layout: a relative cgroup accepted" "no writable cgroup2 here"
	fi
	layout none --cgroup gpuprobe-none
	check "no cgroup2 at /sys/fs/cgroup nor at unified/: a relative path is taken under /sys/fs/cgroup" \
		sh -c '[ "$(cat "$1")" -eq 2 ] && grep -q -- "--cgroup /sys/fs/cgroup/gpuprobe-none: no such cgroup (a relative path is taken under /sys/fs/cgroup;" "$2"' \
		_ "$T/lay.rc" "$T/lay.err"
	layout dir --cgroup unified/gpuprobe-rel
	check "unified/ a plain directory (tmpfs): not in a cgroup v2 filesystem, its type 0x1021994 named" \
		sh -c '[ "$(cat "$1")" -eq 2 ] && grep -q -- "--cgroup /sys/fs/cgroup/unified/gpuprobe-rel: not in a cgroup v2 filesystem (type 0x1021994): give a directory of one (where none is mounted: mkdir -p /mnt/cgroup2 && mount -t cgroup2 none /mnt/cgroup2" "$2"' \
		_ "$T/lay.rc" "$T/lay.err"
	# this machine's own layout: v2 at /sys/fs/cgroup (unified) or at
	# /sys/fs/cgroup/unified (hybrid); relative paths start there
	case $v2 in
	/sys/fs/cgroup | /sys/fs/cgroup/unified)
		(cd "$T" && "$GPT" record -q -o "$T/out.trace" --cgroup gpuprobe-none.$$ --duration 1 >/dev/null 2>"$T/err")
		check "this machine's layout (v2 at $v2): a relative path is taken under it" \
			sh -c '[ "$1" -eq 2 ] && grep -q -- "--cgroup $4/gpuprobe-none.$3: no such cgroup (a relative path is taken under $4;" "$2"' \
			_ $? "$T/err" $$ "$v2" ;;
	*)
		skip "a relative path on this machine's layout" "cgroup2 is mounted at neither /sys/fs/cgroup nor /sys/fs/cgroup/unified (${v2:-nowhere})" ;;
	esac
	# a v1 hierarchy of its own (a named one, no controller), in the namespace
	unshare -m sh -c 'mkdir "$0/v1" && mount -t cgroup -o none,name=gpuprobe-test gpuprobe-test "$0/v1" || exit 99
		exec "$@"' "$T" "$GPT" record -q -o "$T/out.trace" --cgroup "$T/v1" --duration 1 >/dev/null 2>"$T/err"
	rc=$?
	if [ "$rc" -ne 99 ]; then
		check "--cgroup of a cgroup v1 hierarchy mounted here (name=, no controller): only v2, says how" \
			sh -c '[ "$1" -eq 2 ] && grep -q -- "--cgroup $3/v1: a cgroup v1 hierarchy: only cgroup v2 can be followed" "$2"' \
			_ "$rc" "$T/err" "$T"
	else
		skip "--cgroup of a v1 hierarchy mounted here" "this kernel mounts no cgroup v1"
	fi
	rmdir "$T/v1" 2>/dev/null
else
	skip "--cgroup's relative paths in the hybrid and other layouts" "needs root and unshare -m"
fi

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	mkdir "$T/locked" && chmod 700 "$T/locked" && chmod 755 "$T"
	(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$GPT" record -q -o /nonexistent/out.trace --cgroup "$T/locked/x" --duration 1 \
		>/dev/null 2>"$T/err")
	check "--cgroup through a directory the user may not search: permission denied, says who may" \
		sh -c '[ "$1" -eq 2 ] && grep -q "permission denied: run as a user who may read" "$2"' \
		_ $? "$T/err"
elif [ "$(id -u)" -ne 0 ]; then
	mkdir "$T/locked" && chmod 000 "$T/locked"
	refused "--cgroup through a directory the user may not search: permission denied" \
		"permission denied" --cgroup "$T/locked/x" --duration 1
	chmod 700 "$T/locked"
else
	skip "--cgroup permission denied" "root without setpriv"
fi
finish
