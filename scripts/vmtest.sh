#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boots Debian's distro kernel under QEMU (TCG, no KVM, no network) on a q35
# machine with an emulated Intel IOMMU in strict mode, QEMU's "edu" device
# (MSI + DMA) and an NVMe drive, and runs the gpuprobe selftests -- or any
# command -- inside a busybox initramfs.  See Documentation/vmtest.rst.
#
#   scripts/vmtest.sh                      run the VM selftests (KTAP)
#   scripts/vmtest.sh -- CMD [ARGS...]     run CMD in the VM, exit with its status
#
# Fails (non-zero) when a test fails, the kernel prints an oops, WARNING, BUG
# or lockdep report, or the VM runs past the time bound.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/vmlib.sh
. "$TOP/scripts/vmlib.sh"
BUILD=${BUILD:-$TOP/build}
TIMEOUT=${VM_TIMEOUT:-900}
MEM=${VM_MEM:-1024}
EXTRA_APPEND=${VM_APPEND:-}
QUIET=0
VM_TESTS=${VM_TESTS:-}

usage() {
	cat <<'USAGE'
usage: scripts/vmtest.sh [options] [-- CMD [ARGS...]]

Boots the gpuprobe test VM (Debian linux-image-amd64 under QEMU TCG:
q35, intel-iommu strict, edu device, NVMe drive, 2 vCPUs by default) and either runs
the VM selftests or CMD.  Build first with `make`.

options:
  -t SECS        time bound for the whole VM run (default 900)
  -a ARGS        extra kernel command line (e.g. -a swiotlb=force)
  -T NAMES       run only these selftests (comma-separated names)
  -k BZIMAGE     boot this kernel instead of Debian's (the debug kernel of
                 scripts/debug-kernel.sh; build the modules for it first:
                 make modules-debug); a kmemleak scan then ends the run
  -q             print only KTAP and kernel problems, not the boot log
  -h             this help

environment:
  VM_EXTRA_FILES  files or directories (space-separated) copied into
                  /gpuprobe/ as well, e.g. the signed modules of
                  scripts/sign-test.sh or an installed package tree
  VM_EDUS         edu devices in the VM (default 1; vfio_shared needs 2)
  VM_SMP          vCPUs (default 2)
  VM_SERIAL_PORTS a virtio-serial device of N ports too (2N+2 MSI-X
                  vectors, on any number of CPUs: a target of more vectors
                  than one TARGET_GET message holds; target_dump uses it)
  VM_ICOUNT       -icount options (1: shift=0,sleep=on): the guest clock
                  counts executed instructions; more than one vCPU needs
                  QEMU 8.0 or later (scripts/backports-qemu.sh)
  VM_QEMU         the qemu-system-x86_64 to run (default: the one in PATH)
  VM_CPU          -cpu model (default max)
  VM_IOMMU        the emulated IOMMU: intel-iommu (default) or amd-iommu
                  (QEMU's AMD-Vi, with intremap off: Documentation/vmtest.rst)

examples:
  scripts/vmtest.sh                         # all VM selftests
  scripts/vmtest.sh -T edu_irq              # one selftest
  scripts/vmtest.sh -- cat /proc/interrupts # look around inside the VM
  scripts/vmtest.sh -- sh -c 'insmod gpuprobe.ko && gpuprobe-trace info'
USAGE
}

VM_KERNEL=${VM_KERNEL:-}
while getopts "t:a:T:k:qh" opt; do
	case $opt in
	t) TIMEOUT=$OPTARG ;;
	a) EXTRA_APPEND="$EXTRA_APPEND $OPTARG" ;;
	T) VM_TESTS=$OPTARG ;;
	k) VM_KERNEL=$OPTARG ;;
	q) QUIET=1 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift

# MODDIR: where the modules were built (another kernel: make vm612)
MODDIR=${MODDIR:-$TOP}
KO=$MODDIR/kmod/gpuprobe.ko
EDU_KO=$MODDIR/selftests/gpuprobe/edu/gpuprobe_edu.ko
TRACE=$TOP/user/gpuprobe-trace
for f in "$KO" "$EDU_KO" "$TRACE"; do
	if [ ! -f "$f" ]; then
		echo "vmtest: $f is missing: run 'make' first" >&2
		exit 2
	fi
done

# The VM must boot the kernel the module was built for.
KVER=$(vm_module_kver "$KO")
VMLINUZ=${VM_KERNEL:-/boot/vmlinuz-$KVER}
if [ -n "$VM_KERNEL" ]; then
	krel=$(cat "$(dirname "$VM_KERNEL")/../../../include/config/kernel.release" 2>/dev/null || true)
	if [ ! -r "$VM_KERNEL" ] || [ "$krel" != "$KVER" ]; then
		echo "vmtest: $KO was built for $KVER, but $VM_KERNEL is ${krel:-not in a kernel build tree}:" \
			"build the modules for it (make modules-debug)" >&2
		exit 2
	fi
elif [ ! -r "$VMLINUZ" ]; then
	echo "vmtest: $VMLINUZ not found: gpuprobe.ko was built for $KVER;" \
		"install linux-image-$KVER (scripts/deps.sh) or rebuild" >&2
	exit 2
fi

VMDIR=${VMDIR:-$BUILD/vm}
ROOT=$VMDIR/root
vm_root_new "$ROOT"
mkdir -p "$ROOT/lib/modules/$KVER"

# our files
cp "$KO" "$EDU_KO" "$TRACE" "$ROOT/gpuprobe/"
for f in ${VM_EXTRA_FILES:-}; do
	if [ ! -e "$f" ]; then
		echo "vmtest: VM_EXTRA_FILES: $f is missing" >&2
		exit 2
	fi
	cp -a "$f" "$ROOT/gpuprobe/"
done
cp -r "$TOP/selftests/gpuprobe/vm" "$ROOT/gpuprobe/tests"
cp "$TOP/user/tests/vm_sources.sh" "$ROOT/gpuprobe/tests/"
cp "$TOP/selftests/gpuprobe/ktap.sh" "$TOP/selftests/gpuprobe/probe_table.sh" "$ROOT/gpuprobe/tests/"
for t in "$BUILD"/selftests/*; do
	[ -x "$t" ] && cp "$t" "$ROOT/gpuprobe/tests/"
done

# shared libraries of every ELF we ship, resolved by ldd
vm_copy_all_libs "$ROOT" "$ROOT/gpuprobe"

# distro modules and their dependencies, in load order, from modules.dep
# (none for a project kernel: it has them built in)
: >"$ROOT/etc/modules"
[ -n "$VM_KERNEL" ] || vm_distro_modules "$ROOT" "$KVER" nvme vfio-pci
# built in on 6.12, modules on 6.1
[ -n "$VM_KERNEL" ] || [ -z "${VM_SERIAL_PORTS:-}" ] ||
	vm_distro_modules "$ROOT" "$KVER" virtio_pci virtio_console

# what to run
if [ $# -gt 0 ]; then
	printf '%q ' "$@" >"$ROOT/gpuprobe/vm-cmd"
	echo >>"$ROOT/gpuprobe/vm-cmd"
	MODE=cmd
else
	echo "sh /gpuprobe/tests/run.sh $VM_TESTS" >"$ROOT/gpuprobe/vm-cmd"
	MODE=tests
fi

vm_write_init "$ROOT" <<'INIT'
# wait for udev-less device nodes of the NVMe namespace
i=0; while [ ! -b /dev/nvme0n1 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
export PATH=/gpuprobe:/gpuprobe/tests:/bin HOME=/tmp
cd /gpuprobe
echo "GPUPROBE-VM-START"
sh /gpuprobe/vm-cmd
rc=$?
# debug kernels: a kmemleak scan once our modules are gone (two scans: an
# object must stay unreferenced across one to be reported)
if [ -w /sys/kernel/debug/kmemleak ]; then
	for m in gpuprobe gpuprobe_edu; do rmmod $m 2>/dev/null; done
	echo scan >/sys/kernel/debug/kmemleak; sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	echo "GPUPROBE-KMEMLEAK-BEGIN"
	cat /sys/kernel/debug/kmemleak
	echo "GPUPROBE-KMEMLEAK-END"
fi
echo "GPUPROBE-VM-EXIT $rc"
poweroff -f
INIT

INITRD=$VMDIR/initramfs.cpio.gz
vm_pack "$ROOT" "$INITRD"

NVME_IMG=$VMDIR/nvme.img
truncate -s 64M "$NVME_IMG"

# no_timer_check: under TCG on a loaded host the boot-time IO-APIC timer
# check can time out, and with interrupt remapping the kernel then panics
# ("timer doesn't work through Interrupt-remapped IO-APIC") before any test
APPEND="console=ttyS0 loglevel=5 intel_iommu=on iommu.strict=1 no_timer_check"
APPEND="$APPEND $VM_PANIC_APPEND"
# 128 possible CPUs, 2 online: what a large host looks like to per-CPU code
APPEND="$APPEND possible_cpus=128"
APPEND="$APPEND $EXTRA_APPEND"

# VM_EDUS: more edu devices (vfio_shared puts two into one VFIO container)
EDUS=()
for _ in $(seq "${VM_EDUS:-1}"); do
	EDUS+=(-device edu,dma_mask=0xffffffff)
done

# VM_SERIAL_PORTS: virtio_console asks a vector for each port's two queues,
# the control queue's input and the configuration (the control output has
# no callback); a device of many vectors whatever the CPU count
SERIAL=()
if [ -n "${VM_SERIAL_PORTS:-}" ]; then
	SERIAL=(-device "virtio-serial-pci,max_ports=$VM_SERIAL_PORTS,vectors=$((2 * VM_SERIAL_PORTS + 2))")
fi

# VM_ICOUNT: guest time counts executed instructions (benchmarks)
ICOUNT=()
if [ -n "${VM_ICOUNT:-}" ]; then
	[ "$VM_ICOUNT" = 1 ] && VM_ICOUNT=shift=0,sleep=on
	ICOUNT=(-icount "$VM_ICOUNT")
fi
SMP=${VM_SMP:-2}

# VM_IOMMU: which emulated IOMMU the edu and NVMe sit behind
case ${VM_IOMMU:-intel-iommu} in
intel-iommu) IOMMU=(-device intel-iommu) ;;
amd-iommu) IOMMU=(-device amd-iommu) ;;
*) echo "vmtest: VM_IOMMU=$VM_IOMMU: intel-iommu or amd-iommu" >&2; exit 2 ;;
esac

LOG=$VMDIR/console.log
echo "vmtest: booting $KVER (log: $LOG, bound ${TIMEOUT}s)" >&2
vm_run_qemu "$LOG" "$QUIET" "$TIMEOUT" \
	-machine q35 -accel "tcg,thread=${VM_TCG_THREAD:-single}" -cpu "${VM_CPU:-max}" -smp "$SMP" -m "$MEM" \
	"${ICOUNT[@]}" \
	-nodefaults -no-user-config -display none -no-reboot \
	-serial stdio -monitor none \
	-kernel "$VMLINUZ" -initrd "$INITRD" -append "$APPEND" \
	"${IOMMU[@]}" \
	"${EDUS[@]}" "${SERIAL[@]}" \
	-device VGA \
	-drive file="$NVME_IMG",if=none,id=nvme0,format=raw \
	-device nvme,serial=gpuprobe0,drive=nvme0

fail=0
if [ "$VM_QEMU_RC" = 124 ] || [ "$VM_QEMU_RC" = 137 ]; then
	echo "vmtest: FAIL: VM ran past ${TIMEOUT}s; the console ends:" >&2
	tail -n 30 "$LOG" | sed 's/^/vmtest: | /' >&2
	fail=1
fi
vm_kernel_problems "$LOG" vmtest && fail=1
# kmemleak: every module in a debug kernel is ours (the rest is built in), so
# a leak counts when its allocation trace names gpuprobe or runs through
# module space (an unloaded module's frames print as bare addresses)
if grep -q GPUPROBE-KMEMLEAK-BEGIN "$LOG"; then
	sed -n '/GPUPROBE-KMEMLEAK-BEGIN/,/GPUPROBE-KMEMLEAK-END/p' "$LOG" |
		awk '/^unreferenced object/ { if (r != "") print r; r = $0; next }
		     /GPUPROBE-KMEMLEAK/ { next }
		     { r = r "\n" $0 } END { if (r != "") print r }' >"$VMDIR/kmemleak.txt"
	ours=$(grep -Ec 'gpuprobe|\[<ffffffff[a-f][0-9a-f]{7}>\] 0xffffffff[a-f]' "$VMDIR/kmemleak.txt" || true)
	total=$(grep -c . "$VMDIR/kmemleak.txt" || true)
	echo "vmtest: kmemleak: $total unreferenced objects, $ours allocated by our modules" >&2
	if [ "$ours" -gt 0 ]; then
		echo "vmtest: FAIL: kmemleak reports leaks from gpuprobe:" >&2
		grep -E 'gpuprobe|\[<ffffffff[a-f][0-9a-f]{7}>\] 0xffffffff[a-f]' "$VMDIR/kmemleak.txt" |
			head -n 3 | sed 's/\\n/\n/g' >&2
		fail=1
	fi
fi
exit_line=$(grep -a 'GPUPROBE-VM-EXIT' "$LOG" | tail -n1 || true)
if [ -z "$exit_line" ]; then
	echo "vmtest: FAIL: the VM did not finish its command (see $LOG)" >&2
	fail=1
	rc=1
else
	rc=${exit_line##* }
fi

if [ "$MODE" = tests ]; then
	summary=$(grep -a '^# vm: ' "$LOG" | tail -n1 | sed 's/^# vm: //' || true)
	[ -n "$summary" ] || summary="0 passed, 1 failed"
	# a kernel problem fails the run whatever the tests said, and so does
	# run.sh's non-zero exit after "0 failed"
	echo "vmtest: $(vm_tally "$summary" "$fail" "$rc")"
fi
[ "$fail" = 0 ] || exit 1
exit "$rc"
