# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the VM harnesses (vmtest.sh, nested.sh, xen.sh): a busybox initramfs
# tree, the shared libraries and distro modules it needs, packing it, and
# the scan of a console log for kernel problems.  Documentation/vmtest.rst.

# What fails a run when a kernel prints it.
VM_PROBLEM='WARNING:|BUG:|Oops|general protection fault|Kernel panic|possible (circular|recursive) locking|inconsistent lock state|UBSAN:|KASAN:|KFENCE:|ODEBUG:|kernel BUG|INFO: task .* blocked|INFO: rcu_.* stall|DEBUG_LOCKS_WARN'

# Kernel arguments every test kernel boots with: a WARN or oops ends it.
VM_PANIC_APPEND="oops=panic panic_on_warn=1 panic=-1 softlockup_panic=1"

# A fresh tree at root with busybox and its applets.
vm_root_new() {	# root
	rm -rf "$1"
	mkdir -p "$1"/{bin,dev,proc,sys,tmp,etc,gpuprobe}
	cp /bin/busybox "$1/bin/busybox"
	local app
	for app in $("$1/bin/busybox" --list); do
		[ "$app" = busybox ] || ln -sf busybox "$1/bin/$app"
	done
}

# The shared libraries of an ELF file, resolved by ldd, copied into root.
vm_copy_libs() {	# root elf
	# a script (ldd: not a dynamic executable) has none: no error
	{ ldd "$2" 2>/dev/null || :; } | { grep -o '/[^ )]*' || :; } | while read -r lib; do
		[ -e "$1$lib" ] && continue
		mkdir -p "$1$(dirname "$lib")"
		cp -L "$lib" "$1$lib"
	done
}

# The libraries of every executable ELF file under dir (inside root).
vm_copy_all_libs() {	# root dir
	find "$2" -type f -perm -u+x | while read -r f; do
		if head -c4 "$f" | grep -q ELF; then
			vm_copy_libs "$1" "$f"
		fi
	done
}

# Distro modules of kernel kver and their dependencies, in load order (from
# modules.dep), copied into root and appended to root/etc/modules.
vm_distro_modules() {	# root kver module...
	local root=$1 kver=$2 mod
	shift 2
	touch "$root/etc/modules"
	for mod in "$@"; do
		modprobe --show-depends -S "$kver" "$mod" 2>/dev/null |
			awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' | while read -r mod; do
		grep -qxF "$mod" "$root/etc/modules" && continue
		mkdir -p "$root$(dirname "$mod")"
		cp "$mod" "$root$mod"
		echo "$mod" >>"$root/etc/modules"
	done
}

# Writes root/init: the mounts and module loads every test init begins
# with, then the rest of it from stdin.
vm_write_init() {	# root
	{
		cat <<'PROLOGUE'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
for m in $(cat /etc/modules); do insmod "$m" 2>/dev/null; done
PROLOGUE
		cat
	} >"$1/init"
	chmod +x "$1/init"
}

# Runs QEMU (the arguments) under the time bound, the console on stdout,
# kept in log without CRs, filtered: nothing before GPUPROBE-VM-START but
# kernel problems; with quiet, only KTAP lines, tallies and problems.
# Sets VM_QEMU_RC (124 or 137: the bound).
vm_run_qemu() {	# log quiet timeout qemu-args...
	local log=$1 quiet=$2 timeout=$3
	shift 3
	set +e
	timeout --foreground -k 5 "$timeout" "${VM_QEMU:-qemu-system-x86_64}" "$@" \
		</dev/null 2>&1 | stdbuf -oL tr -d '\r' | tee "$log" |
		awk -v quiet="$quiet" '
		/GPUPROBE-VM-START/ { started = 1; next }
		/GPUPROBE-VM-EXIT/ { next }
		!started && !/WARNING:|BUG:|Oops|panic|lockdep|locking|KASAN/ { next }
		quiet && !/^ *(not )?ok |^ *# |^TAP|^ *1\.\.|[0-9]+ passed, [0-9]+ failed|WARNING:|BUG:|Oops|panic|KASAN/ { next }
		{ print; fflush() }'
	VM_QEMU_RC=${PIPESTATUS[0]}
	set -e
}

# "N passed, N failed[, ...]" with one more failure (a kernel problem).
vm_one_more_failure() {	# summary
	echo "$1" | awk -F', ' '{ split($2, f, " "); $2 = (f[1] + 1) " failed"; print }' OFS=', '
}

# A runner's tally: its command's own "N passed, N failed[, N skipped]" (or
# none), one failure more for a kernel problem or a timeout (problem 1), and
# one more for a non-zero exit status that the tally does not already count
# (0 failed).  Nothing when there is no tally and nothing went wrong.
vm_tally() {	# summary problem(0|1) exit-status...
	local s=$1 problem=$2 st bad=0
	shift 2
	for st in "$@"; do [ "$st" = 0 ] || bad=1; done
	[ -n "$s" ] || [ "$problem" = 1 ] || [ "$bad" = 1 ] || return 0
	[ -n "$s" ] || s="0 passed, 0 failed"
	[ "$problem" = 0 ] || s=$(vm_one_more_failure "$s")
	if [ "$bad" = 1 ] && [[ $s =~ ^[0-9]+\ passed,\ 0\ failed ]]; then
		s=$(vm_one_more_failure "$s")
	fi
	echo "$s"
}

# gpuprobe's files in root/gpuprobe, the same on every side of a testbed:
# the tool, the modules, and the tests of the directories named (in
# root/gpuprobe/tests, with the KTAP helpers), with their libraries.
vm_gpuprobe_files() {	# root top test-dir...
	local root=$1 top=$2
	shift 2
	cp "$top/kmod/gpuprobe.ko" "$top/selftests/gpuprobe/edu/gpuprobe_edu.ko" \
		"$top/user/gpuprobe-trace" "$root/gpuprobe/"
	mkdir -p "$root/gpuprobe/tests"
	local d
	for d in "$@"; do
		cp "$top/selftests/gpuprobe/$d"/* "$root/gpuprobe/tests/"
	done
	cp "$top/selftests/gpuprobe/ktap.sh" "$top/selftests/gpuprobe/probe_table.sh" \
		"$root/gpuprobe/tests/"
	vm_copy_all_libs "$root" "$root/gpuprobe"
}

# Executables copied into root at the same paths, with their libraries.
vm_copy_bins() {	# root file...
	local root=$1 f
	shift
	for f in "$@"; do
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f"
		vm_copy_libs "$root" "$f"
	done
}

# The tree as a gzipped newc cpio archive.
vm_pack() {	# root out
	(cd "$1" && find . | cpio -o -H newc --quiet | gzip -1) >"$2"
}

# The kernel release a module was built for (its vermagic).
vm_module_kver() {	# ko
	modinfo -F vermagic "$1" | cut -d' ' -f1
}

# 0 when the log holds a kernel problem; its first report goes to stderr
# (from its first line to the end of its trace).
vm_kernel_problems() {	# log [label]
	grep -Eq "$VM_PROBLEM" "$1" || return 1
	echo "${2:-vm}: FAIL: the kernel reported a problem:" >&2
	awk -v re="$VM_PROBLEM" '$0 ~ re && !n { n = 1 } n && n++ <= 60' "$1" >&2
	return 0
}
