#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bookworm-backports' qemu-system-x86 (10.0), unpacked -- not installed, the
# other tiers keep Debian 12's QEMU 7.2 -- into $GPUPROBE_CACHE/qemu-VERSION
# with a wrapper that points it at its own firmware.  Reuses an unpacked copy.
# Two things need it:
#  * the instruction-count benchmarks (make bench-icount): QEMU 7.2 cannot run
#    more than one vCPU under -icount: its round-robin TCG hands the first
#    vCPU the whole instruction budget up to the next timer, so a vCPU
#    spinning without PAUSE (Linux's do_boot_cpu() loop around schedule())
#    starves the others and the boot hangs at "x86: Booting SMP
#    configuration"; QEMU 8.0 splits the budget between the vCPUs;
#  * the nested testbed's outer VM (scripts/test.sh, tier 3e): under 7.2's
#    multi-threaded TCG a vCPU now and then keeps executing an int3 that
#    text_poke_bp() has already replaced (a stale translation: the host's
#    kernel loops in kprobe_int3_handler with interrupts off, the other vCPU
#    soft-locks waiting for it), and the inner guest now and then stops
#    (Documentation/vmtest.rst, "The nested testbed").
#
# The last line printed is the wrapper's path (use it as VM_QEMU).
set -euo pipefail

CACHE=${GPUPROBE_CACHE:-/var/cache/gpuprobe}
SUITE=bookworm-backports
PKGS="qemu-system-x86 qemu-system-common qemu-system-data"

ver=$(apt-cache policy qemu-system-x86 2>/dev/null |
	awk -v s="$SUITE" '$1 == "***" && NF == 3 { v = $2; next }
		NF == 2 && $1 !~ /^[0-9]+$/ { v = $1; next }
		index($0, " " s "/") && v { print v; exit }')
if [ -z "$ver" ]; then
	echo "backports-qemu: no qemu-system-x86 in $SUITE: run scripts/deps.sh" \
		"(it adds $SUITE) and apt-get update" >&2
	exit 1
fi
dir=$CACHE/qemu-${ver//[:~+]/_}
wrapper=$dir/qemu-system-x86_64
if [ ! -x "$wrapper" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	for p in $PKGS; do
		(cd "$tmp" && apt-get download -q "$p=$ver" >/dev/null 2>&1) || {
			echo "backports-qemu: apt-get download $p=$ver failed" >&2
			exit 1
		}
	done
	rm -rf "$dir"
	mkdir -p "$dir/root"
	for d in "$tmp"/*.deb; do
		dpkg -x "$d" "$dir/root"
	done
	if ldd "$dir/root/usr/bin/qemu-system-x86_64" | grep -q 'not found'; then
		echo "backports-qemu: libraries missing for QEMU $ver:" >&2
		ldd "$dir/root/usr/bin/qemu-system-x86_64" | grep 'not found' >&2
		exit 1
	fi
	# its own option ROMs first, then SeaBIOS and Debian 12's QEMU data
	cat >"$wrapper" <<'WRAPPER'
#!/bin/sh
d=$(dirname "$(readlink -f "$0")")/root
exec "$d/usr/bin/qemu-system-x86_64" -L "$d/usr/share/qemu" \
	-L /usr/share/seabios -L /usr/share/qemu "$@"
WRAPPER
	chmod +x "$wrapper"
fi
"$wrapper" --version | head -n1 >&2
echo "$wrapper"
