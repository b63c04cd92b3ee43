#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The nested passthrough testbed: the test VM (TCG, q35, intel-iommu,
# edu) as a KVM host -- TCG emulates SVM, Debian's 6.1 loads kvm_amd with
# nested paging -- with edu bound to vfio-pci and passed through to an inner
# guest that QEMU starts inside it with -accel kvm.  Runs a command on the
# host side and one in the guest; collects what both write under /out.
# See Documentation/vmtest.rst, "The nested testbed".
#
#   scripts/nested.sh --guest 'insmod gpuprobe_edu.ko'        host side: inner-vm
#   scripts/nested.sh --host 'gpuprobe-trace record -d $EDU -o /out/h.trace -- inner-vm' ...
#
# Fails (non-zero) when either command fails, either kernel prints an oops,
# WARNING, BUG or KASAN report, or the run goes past the time bound.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/vmlib.sh
. "$TOP/scripts/vmlib.sh"
BUILD=${BUILD:-$TOP/build}
TIMEOUT=${VM_TIMEOUT:-300}
HOST_CMD=inner-vm
GUEST_CMD=true
VIOMMU=0
MEM=3G
QUIET=0
OUT=
HOST_EXTRA=
GUEST_EXTRA=

usage() {
	cat <<'USAGE'
usage: scripts/nested.sh [options]

Boots the test VM (Debian's kernel under QEMU TCG, 2 vCPUs, 3 GiB, q35 with
intel-iommu and edu) as a KVM host: kvm_amd (nested SVM), edu bound to
vfio-pci, and an inner guest (the same kernel, -accel kvm, 256 MiB) with
edu passed through, vhost-vsock (guest CID 3, host CID 2) and a 9p share.
Build first with `make`.

options:
  --host CMD     host-side command (sh -c), default `inner-vm`; it starts
                 the inner guest with `inner-vm` (QEMU's pid is inner-vm's:
                 it execs), e.g. `gpuprobe-trace record ... -- inner-vm`
  --guest CMD    guest-side command (sh -c), default `true`
  --viommu       give the inner guest an intel-iommu (caching-mode; kernel
                 intel_iommu=on iommu.strict=1): its DMA maps become host
                 VFIO maps (sets $NESTED_VIOMMU=1 in the host, which
                 inner-vm reads when it starts)
  -o DIR         where /out is (default build/nested/out, emptied first):
                 host.rc, guest.rc, guest-console.log, and what the
                 commands write there; the guest's /out is DIR/guest
  -m MEM         the host's memory (default 3G); under 2816M (q35's split)
                 all of it lies below 4 GiB, where edu's 32-bit DMA reaches
                 it without swiotlb bounces on the host
  -t SECS        time bound for the whole run (default 300)
  -q             print only the commands' output and kernel problems
  -h             this help

Inside the host: $EDU (edu's BDF, bound to vfio-pci), $OUT (/out),
$NESTED_VIOMMU; /gpuprobe holds the tool, the modules and the tests (on
PATH).  Inside the guest: edu at 0000:00:01.0 or behind the vIOMMU,
/dev/vsock, /out.

environment:
  VM_TCG_THREAD   multi (default: one host thread per vCPU) or single; the
                  inner guest hangs under single-threaded TCG
                  (Documentation/vmtest.rst)
  NESTED_QEMU_ARGS  more arguments for the outer QEMU (e.g. a -monitor)
USAGE
}

while [ $# -gt 0 ]; do
	case $1 in
	--host) HOST_CMD=$2; shift 2 ;;
	--guest) GUEST_CMD=$2; shift 2 ;;
	--viommu) VIOMMU=1; shift ;;
	-o) OUT=$2; shift 2 ;;
	-a) HOST_EXTRA="$HOST_EXTRA $2"; shift 2 ;;
	-g) GUEST_EXTRA="$GUEST_EXTRA $2"; shift 2 ;;
	-m) MEM=$2; shift 2 ;;
	-t) TIMEOUT=$2; shift 2 ;;
	-q) QUIET=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

KO=$TOP/kmod/gpuprobe.ko
EDU_KO=$TOP/selftests/gpuprobe/edu/gpuprobe_edu.ko
TRACE=$TOP/user/gpuprobe-trace
QEMU=$(command -v qemu-system-x86_64 || true)
for f in "$KO" "$EDU_KO" "$TRACE" "$QEMU"; do
	if [ ! -f "$f" ]; then
		echo "nested: ${f:-qemu-system-x86_64} is missing: run scripts/deps.sh and make" >&2
		exit 2
	fi
done
KVER=$(vm_module_kver "$KO")
VMLINUZ=/boot/vmlinuz-$KVER
if [ ! -r "$VMLINUZ" ]; then
	echo "nested: $VMLINUZ not found: install linux-image-$KVER (scripts/deps.sh)" >&2
	exit 2
fi

NDIR=${VMDIR:-$BUILD/nested}
OUT=${OUT:-$NDIR/out}
mkdir -p "$NDIR" "$OUT"
OUT=$(cd "$OUT" && pwd)
find "$OUT" -mindepth 1 -delete

# Our files, the same on both sides: the tool, the modules, the tests.
gpuprobe_files() {	# root
	vm_gpuprobe_files "$1" "$TOP" nested
}

# ---- the inner guest's initramfs ----
GROOT=$NDIR/guest-root
vm_root_new "$GROOT"
gpuprobe_files "$GROOT"
vm_distro_modules "$GROOT" "$KVER" virtio_pci 9pnet_virtio 9p vmw_vsock_virtio_transport
printf '%s\n' "$GUEST_CMD" >"$GROOT/gpuprobe/guest-cmd"
vm_write_init "$GROOT" <<'INIT'
mkdir -p /out
mount -t 9p -o trans=virtio,version=9p2000.L out /out
export PATH=/gpuprobe:/gpuprobe/tests:/bin HOME=/tmp OUT=/out
cd /gpuprobe
echo "GPUPROBE-GUEST-START"
sh /gpuprobe/guest-cmd
rc=$?
echo "$rc" >/out/guest.rc
echo "GPUPROBE-GUEST-EXIT $rc"
umount /out
poweroff -f
INIT

# ---- the host's initramfs: the same, plus QEMU and the inner guest ----
HROOT=$NDIR/host-root
vm_root_new "$HROOT"
gpuprobe_files "$HROOT"
vm_distro_modules "$HROOT" "$KVER" kvm_amd vfio-pci vhost_vsock virtio_pci 9pnet_virtio 9p
mkdir -p "$HROOT/usr/bin" "$HROOT/usr/share/seabios" "$HROOT/usr/share/qemu" "$HROOT/inner"
cp "$QEMU" "$HROOT/usr/bin/"
vm_copy_libs "$HROOT" "$QEMU"
cp /usr/share/seabios/bios-256k.bin "$HROOT/usr/share/seabios/"
cp /usr/share/qemu/linuxboot_dma.bin /usr/share/qemu/kvmvapic.bin "$HROOT/usr/share/qemu/"
cp "$VMLINUZ" "$HROOT/inner/vmlinuz"
vm_pack "$GROOT" "$HROOT/inner/initramfs.cpio.gz"
printf '%s\n' "$HOST_CMD" >"$HROOT/gpuprobe/host-cmd"

GUEST_APPEND="console=ttyS0 loglevel=5 $VM_PANIC_APPEND$GUEST_EXTRA"
# the inner guest: it execs QEMU, so its pid is the VMM's; the vIOMMU is
# chosen when it starts, so one host command can start the guest both ways
cat >"$HROOT/gpuprobe/inner-vm" <<EOF
#!/bin/sh
# Starts the inner guest, with edu passed through and, when NESTED_VIOMMU
# is 1, a vIOMMU; extra QEMU arguments may follow.
mkdir -p /tmp/guest-out
echo \$\$ >/out/inner-vm.pid
machine="-machine q35"
append="$GUEST_APPEND"
if [ "\$NESTED_VIOMMU" = 1 ]; then
	machine="-machine q35,kernel-irqchip=split -device intel-iommu,caching-mode=on"
	append="\$append intel_iommu=on iommu.strict=1"
fi
exec qemu-system-x86_64 \$machine \\
	-accel kvm -cpu host,-xsave -m 256 -smp 1 \\
	-nodefaults -no-user-config -display none -no-reboot -monitor none \\
	-chardev stdio,id=con,signal=off,logfile=/tmp/guest-console.log \\
	-serial chardev:con \\
	-kernel /inner/vmlinuz -initrd /inner/initramfs.cpio.gz \\
	-append "\$append" \\
	-device vfio-pci,host=\$EDU \\
	-device vhost-vsock-pci,guest-cid=3 \\
	-fsdev local,id=out,path=/tmp/guest-out,security_model=none \\
	-device virtio-9p-pci,fsdev=out,mount_tag=out "\$@"
EOF
chmod +x "$HROOT/gpuprobe/inner-vm"
echo "$VIOMMU" >"$HROOT/etc/nested-viommu"

vm_write_init "$HROOT" <<'INIT'
mkdir -p /out
mount -t 9p -o trans=virtio,version=9p2000.L out /out
EDU=$(basename "$(dirname "$(grep -l 0x11e8 /sys/bus/pci/devices/*/device)")")
echo 1234 11e8 >/sys/bus/pci/drivers/vfio-pci/new_id
export PATH=/gpuprobe:/gpuprobe/tests:/bin:/usr/bin HOME=/tmp OUT=/out EDU
export NESTED_VIOMMU=$(cat /etc/nested-viommu)
cd /gpuprobe
echo "GPUPROBE-VM-START"
sh /gpuprobe/host-cmd
rc=$?
# what the guest wrote
cp -r /tmp/guest-out /out/guest 2>/dev/null
cp /tmp/guest-console.log /out/ 2>/dev/null
echo "$rc" >/out/host.rc
echo "GPUPROBE-VM-EXIT $rc"
umount /out
poweroff -f
INIT
INITRD=$NDIR/host-initramfs.cpio.gz
vm_pack "$HROOT" "$INITRD"

# tsc=reliable: TCG derives every vCPU's TSC from one host counter, but the
# kernel's boot-time sync check, slowed by emulation, finds them apart and
# marks the TSC unstable; KVM then rewrites each vCPU's TSC offset at every
# vCPU load, and the exact guest clock (Documentation/passthrough.md) has
# no fixed relation to use.  no_timer_check: as vmtest.sh (a loaded host
# failed the IO-APIC timer check under interrupt remapping and panicked).
APPEND="console=ttyS0 loglevel=5 intel_iommu=on iommu=pt tsc=reliable no_timer_check $VM_PANIC_APPEND$HOST_EXTRA"
LOG=$NDIR/console.log
GLOG=$OUT/guest-console.log
echo "nested: booting $KVER as the host (log: $LOG, bound ${TIMEOUT}s)" >&2
vm_run_qemu "$LOG" "$QUIET" "$TIMEOUT" \
	-machine q35,kernel-irqchip=split \
	-accel "tcg,thread=${VM_TCG_THREAD:-multi}" -cpu max -smp 2 -m "$MEM" \
	-nodefaults -no-user-config -display none -no-reboot \
	-serial stdio -monitor none \
	-kernel "$VMLINUZ" -initrd "$INITRD" -append "$APPEND" \
	-device intel-iommu,intremap=on,caching-mode=on \
	-device edu,dma_mask=0xffffffff \
	-fsdev local,id=out,path="$OUT",security_model=none \
	-device virtio-9p-pci,fsdev=out,mount_tag=out ${NESTED_QEMU_ARGS:-}

fail=0
if [ "$VM_QEMU_RC" = 124 ] || [ "$VM_QEMU_RC" = 137 ]; then
	echo "nested: FAIL: the run went past ${TIMEOUT}s; the console ends:" >&2
	tail -n 30 "$LOG" | sed 's/^/nested: | /' >&2
	fail=1
fi
# the guest's console is on the host's too (its QEMU's stdio): told apart
# by the guest's own copy
: >"$NDIR/guest-console.log"
if [ -f "$GLOG" ]; then
	tr -d '\r' <"$GLOG" >"$NDIR/guest-console.log"
	[ "$QUIET" = 1 ] ||
		sed -n '/GPUPROBE-GUEST-START/,$p' "$NDIR/guest-console.log" | sed 's/^/guest| /'
	vm_kernel_problems "$NDIR/guest-console.log" "nested: guest" && fail=1
fi
grep -avxFf "$NDIR/guest-console.log" "$LOG" >"$NDIR/host-console.log" || true
vm_kernel_problems "$NDIR/host-console.log" "nested: host" && fail=1
if [ ! -f "$OUT/host.rc" ]; then
	echo "nested: FAIL: the host did not finish its command (see $LOG)" >&2
	exit 1
fi
host_rc=$(cat "$OUT/host.rc")
guest_rc=0
if [ -f "$GLOG" ]; then
	if [ ! -f "$OUT/guest/guest.rc" ]; then
		echo "nested: FAIL: the guest did not finish its command (see $NDIR/guest-console.log)" >&2
		fail=1
	else
		guest_rc=$(cat "$OUT/guest/guest.rc")
	fi
fi
# the host command's own tally: between its start and exit markers, and not
# a line of the guest's console (which is on the host's too)
summary=$(sed -n '/GPUPROBE-VM-START/,/GPUPROBE-VM-EXIT/p' "$NDIR/host-console.log" |
	grep -aE '^[0-9]+ passed, [0-9]+ failed' | tail -n1 || true)
[ "$host_rc" = 0 ] || echo "nested: FAIL: the host command exited $host_rc" >&2
[ "$guest_rc" = 0 ] || echo "nested: FAIL: the guest command exited $guest_rc" >&2
summary=$(vm_tally "$summary" "$fail" "$host_rc" "$guest_rc")
[ -z "$summary" ] || echo "nested: $summary"
[ "$fail" = 0 ] || exit 1
[ "$host_rc" = 0 ] || exit "$host_rc"
exit "$guest_rc"
