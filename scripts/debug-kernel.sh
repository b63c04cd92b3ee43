#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds the gpuprobe debug kernel (KASAN, KFENCE, UBSAN, lockdep, kmemleak,
# fault injection) from Debian's linux-source-6.1 tarball and the fragment
# scripts/kconfig/debug.config merged onto allnoconfig, or reuses a cached
# build of the same source version and fragment.  The cache lives outside the
# clone (default /var/cache/gpuprobe, override with GPUPROBE_CACHE) so CI and
# later sessions on the same machine reuse it.
#
# The last line printed is always
#   BZIMAGE=<path> KDIR=<tree usable as make KDIR=>
# See Documentation/debug-kernel.rst.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
FRAGMENT=$TOP/scripts/kconfig/debug.config
CACHE=${GPUPROBE_CACHE:-/var/cache/gpuprobe}
TARBALL=${KSRC_TAR:-$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null || true)}
JOBS=${JOBS:-$(nproc)}

usage() {
	cat <<'USAGE'
usage: scripts/debug-kernel.sh [-f] [-h]

Builds (or reuses) the debug kernel the debug VM tier boots, from Debian's
linux-source-6.1 and scripts/kconfig/debug.config.  The build takes 30-45
minutes on 2 cores (an earlier build of the same source seeds it: kbuild
rebuilds what changed); a cached one is reused in a second.

  -f   rebuild even when a cached build exists
  -h   this help

environment: GPUPROBE_CACHE (default /var/cache/gpuprobe), JOBS (default nproc)
last line:   BZIMAGE=<path> KDIR=<path>
USAGE
}

force=0
while getopts "fh" opt; do
	case $opt in
	f) force=1 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

if [ -z "$TARBALL" ] || [ ! -r "$TARBALL" ]; then
	echo "debug-kernel: /usr/src/linux-source-6.1.tar.xz not found: run scripts/deps.sh" >&2
	exit 2
fi
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null ||
	stat -c %s "$TARBALL")
# the key: source version, fragment and this script's build recipe
key=$( { echo "$srcver"; cat "$FRAGMENT"; sed -n '/^# --- recipe/,$p' "$0"; } |
	sha256sum | cut -c1-16)
DIR=$CACHE/debug-kernel/$key
TREE=$DIR/linux
BZIMAGE=$TREE/arch/x86/boot/bzImage

if ! mkdir -p "$CACHE/debug-kernel" 2>/dev/null || [ ! -w "$CACHE/debug-kernel" ]; then
	echo "debug-kernel: cannot write $CACHE: run as root or set GPUPROBE_CACHE" >&2
	exit 2
fi

# one build at a time per cache (a second caller waits, then reuses it)
exec 9>"$CACHE/debug-kernel/.lock"
if ! flock -n 9; then
	echo "debug-kernel: another build holds $CACHE/debug-kernel/.lock; waiting" >&2
	flock 9
fi

if [ "$force" = 0 ] && [ -f "$DIR/complete" ] && [ -r "$BZIMAGE" ]; then
	echo "debug-kernel: cached build $key ($(cat "$DIR/complete"))" >&2
	echo "BZIMAGE=$BZIMAGE KDIR=$TREE"
	exit 0
fi

# --- recipe (part of the cache key) ---
start=$(date +%s)
rm -rf "$DIR"
mkdir -p "$DIR"
# A finished build of the same source (another fragment) seeds this one:
# kbuild then recompiles only what the changed options touch.
seed=""
for done_file in "$CACHE"/debug-kernel/*/complete; do
	d=$(dirname "$done_file")
	[ "$d" != "$DIR" ] && [ -d "$d/linux" ] &&
		[ "$(cat "$d/srcver" 2>/dev/null)" = "$srcver" ] && seed=$d
done
if [ -n "$seed" ]; then
	echo "debug-kernel: building $key from the build in $seed ($srcver), -j$JOBS" >&2
	cp -a "$seed/linux" "$TREE"
else
	echo "debug-kernel: building $key from $TARBALL ($srcver) in $TREE, -j$JOBS" >&2
	tar -xJf "$TARBALL" -C "$DIR"
	mv "$DIR"/linux-source-6.1 "$TREE"
fi
echo "$srcver" >"$DIR/srcver"
cp "$FRAGMENT" "$DIR/debug.config"
(
	cd "$TREE"
	# allnoconfig as the base (-n), then our fragment; merge_config.sh
	# names every option it could not set
	scripts/kconfig/merge_config.sh -n "$DIR/debug.config" >"$DIR/merge.log" 2>&1
	if grep -q 'not in final .config' "$DIR/merge.log"; then
		echo "debug-kernel: the fragment asks for options this source cannot set:" >&2
		grep -A2 'not in final .config' "$DIR/merge.log" >&2
		exit 1
	fi
	make -s olddefconfig
	# progress: one line per directory finished would flood; print a
	# count of compiled objects every minute instead
	make -j"$JOBS" all >"$DIR/build.log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 60
		kill -0 "$pid" 2>/dev/null || break
		echo "debug-kernel: $(( ($(date +%s) - start) / 60 )) min," \
			"$(grep -c '^  CC ' "$DIR/build.log") files compiled" >&2
	done
	if ! wait "$pid"; then
		echo "debug-kernel: build failed; the last lines of $DIR/build.log:" >&2
		tail -n 30 "$DIR/build.log" >&2
		exit 1
	fi
)
secs=$(( $(date +%s) - start ))
echo "built in ${secs}s with -j$JOBS on $(date -u +%Y-%m-%d)${seed:+ (from $(basename "$seed"))}" >"$DIR/complete"
# keep the three newest builds
ls -dt "$CACHE"/debug-kernel/*/ | tail -n +4 | xargs -r rm -rf
echo "debug-kernel: built in $((secs / 60)) min $((secs % 60)) s (-j$JOBS)" >&2
echo "BZIMAGE=$BZIMAGE KDIR=$TREE"
