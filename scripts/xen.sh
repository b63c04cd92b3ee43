#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The nested Xen testbed: the test VM (QEMU TCG, q35, intel-iommu, edu)
# boots Xen 4.17 with Debian's 6.1 kernel as dom0; dom0 makes edu
# assignable and starts HVM guests (the same kernel, device model
# qemu-xen) with edu passed through, in one or both interrupt modes.
# Runs a command in dom0 and one in every guest; collects what they write
# under /out.  See Documentation/vmtest.rst, "The Xen testbed".
#
#   scripts/xen.sh --guest 'sh /gpuprobe/tests/edu_raise.sh irq:10'
#   scripts/xen.sh --dom0 'xen-guest pvhvm' --guest ...
#
# Fails (non-zero) when a command fails, a kernel (dom0's or a guest's)
# prints an oops, WARNING, BUG or KASAN report, Xen panics or reports a
# fatal trap, or the run goes past the time bound.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/vmlib.sh
. "$TOP/scripts/vmlib.sh"
BUILD=${BUILD:-$TOP/build}
TIMEOUT=${VM_TIMEOUT:-1800}
DOM0_CMD="xen-guest pvhvm; a=\$?; xen-guest nopv && [ \$a = 0 ]"
GUEST_CMD=true
QUIET=0
OUT=
XEN_EXTRA=
GUEST_EXTRA=
NVME=0

usage() {
	cat <<'USAGE'
usage: scripts/xen.sh [options]

Boots Xen 4.17 (Debian's xen-hypervisor-4.17-amd64) in the test VM (QEMU
TCG, 2 vCPUs, 3 GiB, q35 with intel-iommu,intremap=on and edu), Debian's
kernel as dom0 (1 GiB), and from dom0 HVM guests (the same kernel, 1 vCPU,
384 MiB, device model qemu-xen) with edu -- and the NVMe drive with
--nvme -- passed through (xl pci-assignable-add, pci=[...]).  Build first
with `make`; Xen's packages are installed when missing (scripts/deps.sh xen).

options:
  --dom0 CMD     dom0's command (sh -c); default
                 `xen-guest pvhvm; a=$?; xen-guest nopv && [ $a = 0 ]`:
                 the two guests, one after the other, both run.  `xen-guest MODE [xl.cfg lines...]` runs
                 one guest to its end (it powers off when its command is
                 done) and returns its command's exit status; MODE is
                   pvhvm  PV-on-HVM: the guest remaps the device's MSI(-X)
                          to Xen event channels (xen-pirq-msi in
                          /proc/interrupts, reached through the upcall)
                   nopv   the guest kernel booted with `nopv` (was
                          xen_nopv): it does not use Xen's PV interfaces,
                          MSIs are injected as plain vLAPIC vectors
                          (PCI-MSI in /proc/interrupts)
                 `xen-guest-start MODE` starts one in the background (its
                 domain id on stdout) and `xen-guest-wait ID` waits for it,
                 for a dom0 command that works while the guest runs, e.g.
                   --dom0 'id=$(xen-guest-start pvhvm) && xentrace ... &
                           xen-guest-wait $id'
  --guest CMD    each guest's command (sh -c), default `true`; $XEN_MODE
                 says which mode the guest is in
  --nvme         an NVMe drive (a 16 MiB image) on the test VM, passed
                 through too ($NVME in dom0: its BDF)
  -o DIR         where dom0's /out is (default build/xen/out, emptied
                 first): dom0.rc, and per guest DIR/guest-MODE/ with
                 guest.rc, console.log and what the guest wrote to /out
                 (sent back through its serial console: keep it small)
  -t SECS        time bound for the whole run (default 1800; one guest
                 took 274-546 s on the loaded 2-core dev machine)
  -x ARGS        more arguments for Xen's command line
  -g ARGS        more arguments for the guests' kernel command line
  -q             print only the commands' output and problems
  -h             this help

In dom0: xl (/usr/lib/xen-4.17/bin on PATH), xenstored and xenconsoled
running, $EDU (edu's BDF, assignable), $OUT (/out), /gpuprobe with the
tool, the modules and the tests (on PATH).  In a guest: edu at a BDF of
its own (find it by its id 1234:11e8, as tests/edu_raise.sh does),
$XEN_MODE, /out.

environment:
  VM_TCG_THREAD   multi (default) or single
  VM_QEMU         the outer QEMU (default qemu-system-x86_64: Debian's 7.2)
  XEN_QEMU_ARGS   more arguments for the outer QEMU
  XEN_CPU         the outer CPU (default max,-rdtscp: Documentation/vmtest.rst)
  XEN_GUEST_TIMEOUT  seconds a guest may run before xen-guest-wait shows
                  its console, the device model's and Xen's logs and
                  destroys it (default 720)
USAGE
}

while [ $# -gt 0 ]; do
	case $1 in
	--dom0) DOM0_CMD=$2; shift 2 ;;
	--guest) GUEST_CMD=$2; shift 2 ;;
	--nvme) NVME=1; shift ;;
	-o) OUT=$2; shift 2 ;;
	-x) XEN_EXTRA="$XEN_EXTRA $2"; shift 2 ;;
	-g) GUEST_EXTRA="$GUEST_EXTRA $2"; shift 2 ;;
	-t) TIMEOUT=$2; shift 2 ;;
	-q) QUIET=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

KO=$TOP/kmod/gpuprobe.ko
XENGZ=/boot/xen-4.17-amd64.gz
XENBIN=/usr/lib/xen-4.17/bin
DM=/usr/libexec/xen-qemu-system-i386
HVMLOADER=/usr/lib/xen-4.17/boot/hvmloader
for f in "$KO" "$TOP/selftests/gpuprobe/edu/gpuprobe_edu.ko" "$TOP/user/gpuprobe-trace"; do
	if [ ! -f "$f" ]; then
		echo "xen: $f is missing: run make" >&2
		exit 2
	fi
done
# Xen's packages are not make test's: installed here when missing
if [ ! -f "$XENGZ" ] || [ ! -f "$XENBIN/xl" ] || [ ! -f "$DM" ]; then
	"$TOP/scripts/deps.sh" xen || exit 2
fi
for f in "$XENGZ" "$XENBIN/xl" "$DM" "$HVMLOADER" /usr/share/seabios/bios-256k.bin; do
	if [ ! -f "$f" ]; then
		echo "xen: $f is missing: run scripts/deps.sh xen (xen-hypervisor-4.17-amd64, xen-utils-4.17, qemu-system-xen, seabios)" >&2
		exit 2
	fi
done
KVER=$(vm_module_kver "$KO")
VMLINUZ=/boot/vmlinuz-$KVER
if [ ! -r "$VMLINUZ" ]; then
	echo "xen: $VMLINUZ not found: install linux-image-$KVER (scripts/deps.sh)" >&2
	exit 2
fi

XDIR=${VMDIR:-$BUILD/xen}
OUT=${OUT:-$XDIR/out}
mkdir -p "$XDIR" "$OUT"
OUT=$(cd "$OUT" && pwd)
find "$OUT" -mindepth 1 -delete

# ---- the guests' initramfs ----
GROOT=$XDIR/guest-root
vm_root_new "$GROOT"
vm_gpuprobe_files "$GROOT" "$TOP" nested xen
# the guest's kernel and initramfs reach it through QEMU's fw_cfg without
# DMA (linuxboot.bin), a port read at a time: every MiB counts
strip --strip-debug "$GROOT"/gpuprobe/*.ko
vm_distro_modules "$GROOT" "$KVER" nvme
printf '%s\n' "$GUEST_CMD" >"$GROOT/gpuprobe/guest-cmd"
# /out goes back as a gzipped tar in base64 on the serial console
vm_write_init "$GROOT" <<'INIT'
mkdir -p /out
XEN_MODE=$(sed -n 's/.*gpuprobe.xen_mode=\([a-z]*\).*/\1/p' /proc/cmdline)
export PATH=/gpuprobe:/gpuprobe/tests:/bin HOME=/tmp OUT=/out XEN_MODE
cd /gpuprobe
echo "GPUPROBE-GUEST-START $XEN_MODE"
sh /gpuprobe/guest-cmd
rc=$?
echo "$rc" >/out/guest.rc
echo "GPUPROBE-GUEST-EXIT $rc"
echo "GPUPROBE-OUT-BEGIN"
tar -C /out -cf - . | gzip -9 | base64
echo "GPUPROBE-OUT-END"
poweroff -f
INIT

# ---- dom0's initramfs: Xen's tools, the device model, the guest ----
DROOT=$XDIR/dom0-root
vm_root_new "$DROOT"
vm_gpuprobe_files "$DROOT" "$TOP" nested xen
vm_distro_modules "$DROOT" "$KVER" xen-evtchn xen-gntdev xen-gntalloc xen-privcmd \
	xenfs xen-pciback virtio_pci 9pnet_virtio 9p
mkdir -p "$DROOT"/{var/run/xen,var/run/xenstored,var/lib/xen,var/lib/xenstored,var/log/xen,etc/xen,guest,usr/share/qemu}
# shellcheck disable=SC2046
vm_copy_bins "$DROOT" $(find "$XENBIN" -maxdepth 1 -type f -perm -u+x \
	\( -name xl -o -name xenstored -o -name xenconsoled -o -name xen-init-dom0 \
	-o -name xenstore-control -o -name libxl-save-helper -o -name 'xen*' \)) \
	"$DM" "$HVMLOADER" /usr/share/seabios/bios-256k.bin
mkdir -p "$DROOT/usr/lib/x86_64-linux-gnu"
find /usr/lib/x86_64-linux-gnu -maxdepth 1 -name 'libxen*' -exec cp -P {} "$DROOT/usr/lib/x86_64-linux-gnu/" \;
cp -r /usr/share/qemu/keymaps "$DROOT/usr/share/qemu/"
for f in /usr/share/qemu/*.bin /usr/share/qemu/*.rom; do
	[ -f "$f" ] && [ "$(stat -c %s "$f")" -lt 300000 ] && cp "$f" "$DROOT/usr/share/qemu/"
done
cp "$VMLINUZ" "$DROOT/guest/vmlinuz"
vm_pack "$GROOT" "$DROOT/guest/initramfs.cpio.gz"
printf '%s\n' "$DOM0_CMD" >"$DROOT/gpuprobe/dom0-cmd"
GUEST_APPEND="console=ttyS0 loglevel=5 $VM_PANIC_APPEND$GUEST_EXTRA"
echo "$GUEST_APPEND" >"$DROOT/etc/guest-append"
echo "$NVME" >"$DROOT/etc/xen-nvme"

cat >"$DROOT/gpuprobe/xen-guest-start" <<'EOF'
#!/bin/sh
# Starts one HVM guest in MODE (pvhvm | nopv) with the assignable devices
# passed through; more xl.cfg lines may follow.  Prints its domain id.
mode=$1
shift
case $mode in
pvhvm) extra= ;;
nopv) extra=" nopv" ;;
*) echo "xen-guest: unknown mode $mode" >&2; exit 2 ;;
esac
n=$(ls -d /tmp/guest-* 2>/dev/null | wc -l)
name=g$n-$mode
dir=/tmp/guest-$name
mkdir -p "$dir"
pci="\"$EDU\""
[ -z "$NVME" ] || pci="$pci, \"$NVME\""
cat >"$dir/xl.cfg" <<CFG
name = "$name"
type = "hvm"
device_model_version = "qemu-xen"
memory = 384
vcpus = 1
kernel = "/guest/vmlinuz"
ramdisk = "/guest/initramfs.cpio.gz"
cmdline = "$(cat /etc/guest-append)$extra gpuprobe.xen_mode=$mode"
serial = "file:$dir/console.log"
vnc = 0
sdl = 0
vga = "none"
disk = []
vif = []
pci = [ $pci ]
on_poweroff = "destroy"
on_reboot = "destroy"
on_crash = "destroy"
CFG
for line in "$@"; do echo "$line" >>"$dir/xl.cfg"; done
xl -v create "$dir/xl.cfg" >"$dir/xl-create.log" 2>&1 || {
	cat "$dir/xl-create.log" >&2
	exit 1
}
xl domid "$name"
EOF
cat >"$DROOT/gpuprobe/xen-guest-wait" <<'EOF'
#!/bin/sh
# Waits for the guest with domain id ID to end, copies its console and
# /out to /out/guest-MODE/ and exits with its command's status.
id=$1
name=$(xl domname "$id") || exit 1
dir=/tmp/guest-$name
mode=${name#*-}
# bounded: a guest that has not ended in $XEN_GUEST_TIMEOUT s is shown
# (its console's end, the device model's log, Xen's) and destroyed.  Polled
# every 5 s: each xl is a process that the guest's vCPU waits for under TCG
up() { cut -d. -f1 /proc/uptime; }
t0=$(up)
next=60
while xl list "$id" >/dev/null 2>&1; do
	sleep 5
	t=$(($(up) - t0))
	if [ "$t" -ge "$next" ]; then
		next=$((next + 60))
		echo "xen-guest: $name at ${t}s: $(tr -d '\r' <"$dir/console.log" 2>/dev/null | grep -v '^$' | tail -n1)"
	fi
	if [ "$t" -ge "$XEN_GUEST_TIMEOUT" ]; then
		echo "xen-guest: FAIL: $name still running after ${t}s (logs: /out/guest-$name/)"
		xl list
		# to files first: a busybox applet in dom0 now and then
		# segfaults (Documentation/vmtest.rst), a file is kept
		mkdir -p "/out/guest-$name"
		xl dmesg >"/out/guest-$name/xen-dmesg.log" 2>&1
		dmesg >"/out/guest-$name/dom0-dmesg.log"
		cp "$dir/xl-create.log" "/out/guest-$name/"
		echo "-- its console:"; tr -d '\r' <"$dir/console.log" | tail -n 30
		echo "-- device model:"; tail -n 30 /var/log/xen/qemu-dm-"$name".log
		xl destroy "$id"
		break
	fi
done
echo "xen-guest: $name ended after $(($(up) - t0))s"
o=/out/guest-$mode
[ ! -d "$o" ] || o=/out/guest-$name
mkdir -p "$o"
cp "$dir/xl-create.log" "$o/"
tr -d '\r' <"$dir/console.log" >"$o/console.log"
cp "$dir/xl.cfg" "$o/"
cp /var/log/xen/qemu-dm-"$name".log "$o/" 2>/dev/null
sed -n '/^GPUPROBE-OUT-BEGIN/,/^GPUPROBE-OUT-END/p' "$o/console.log" |
	sed '1d;$d' | base64 -d | tar -xzf - -C "$o" || {
	echo "xen-guest: $name sent no /out (console: $o/console.log)" >&2
	exit 1
}
sed -i '/^GPUPROBE-OUT-BEGIN/,/^GPUPROBE-OUT-END/d' "$o/console.log"
# its output (its tally among it) on dom0's console
echo "# guest $name:"
sed -n '/GPUPROBE-GUEST-START/,$p' "$o/console.log"
exit "$(cat "$o/guest.rc")"
EOF
cat >"$DROOT/gpuprobe/xen-guest" <<'EOF'
#!/bin/sh
# Runs one guest to its end: xen-guest MODE [xl.cfg lines...].
id=$(xen-guest-start "$@") || exit 1
exec xen-guest-wait "$id"
EOF
chmod +x "$DROOT"/gpuprobe/xen-guest*
echo "$QUIET" >"$DROOT/etc/xen-quiet"
echo "${XEN_GUEST_TIMEOUT:-720}" >"$DROOT/etc/xen-guest-timeout"
# dom0_mem is fixed: xl must not balloon dom0 down for a guest
echo 'autoballoon="off"' >"$DROOT/etc/xen/xl.conf"

vm_write_init "$DROOT" <<'INIT'
mkdir -p /out /proc/xen /dev/xen /dev/pts
# xenconsoled gives each guest console a pty
grep -q " /dev/pts " /proc/mounts || mount -t devpts -o ptmxmode=666 devpts /dev/pts
[ -e /dev/ptmx ] || ln -s pts/ptmx /dev/ptmx
mount -t 9p -o trans=virtio,version=9p2000.L out /out
mount -t xenfs xenfs /proc/xen
export PATH=/gpuprobe:/gpuprobe/tests:/usr/lib/xen-4.17/bin:/bin:/usr/bin HOME=/tmp OUT=/out
export QUIET=$(cat /etc/xen-quiet)
export XEN_GUEST_TIMEOUT=$(cat /etc/xen-guest-timeout)
/usr/lib/xen-4.17/bin/xenstored --pid-file /var/run/xenstored.pid
/usr/lib/xen-4.17/bin/xen-init-dom0 >/tmp/xen-init-dom0.log 2>&1 ||
	cat /tmp/xen-init-dom0.log
/usr/lib/xen-4.17/bin/xenconsoled --pid-file=/var/run/xenconsoled.pid
EDU=$(basename "$(dirname "$(grep -l 0x11e8 /sys/bus/pci/devices/*/device)")")
NVME=
if [ "$(cat /etc/xen-nvme)" = 1 ]; then
	NVME=$(basename "$(dirname "$(grep -l 0x010802 /sys/bus/pci/devices/*/class)")")
fi
export EDU NVME
for d in $EDU $NVME; do xl pci-assignable-add "$d"; done
cd /gpuprobe
echo "GPUPROBE-VM-START"
echo "# dom0 up $(cut -d' ' -f1 /proc/uptime) s"
sh /gpuprobe/dom0-cmd
rc=$?
cp /var/log/xen/*.log /out/ 2>/dev/null
xl dmesg >/out/xen-dmesg.log 2>&1
# dom0's own: its processes' segfaults are told here (at loglevel 6)
dmesg >/out/dom0-dmesg.log
echo "$rc" >/out/dom0.rc
echo "GPUPROBE-VM-EXIT $rc"
umount /out
poweroff -f
INIT
INITRD=$XDIR/dom0-initramfs.cpio.gz
vm_pack "$DROOT" "$INITRD"

XEN=$XDIR/xen-4.17
zcat "$XENGZ" >"$XEN"
# smap=0 smep=0: under TCG dom0 faults at its first instruction with them;
# -rdtscp: TCG's SVM lacks NRIPS, Xen cannot emulate the RDTSCP exit
# (Documentation/vmtest.rst, "The Xen testbed")
XEN_APPEND="console=com1 com1=115200,8n1 dom0_mem=1024M,max:1024M iommu=verbose watchdog=0 smap=0 smep=0 loglvl=all guest_loglvl=all$XEN_EXTRA"
DOM0_APPEND="console=hvc0 rdinit=/init loglevel=5 $VM_PANIC_APPEND"
NVME_ARGS=()
if [ "$NVME" = 1 ]; then
	truncate -s 16M "$XDIR/nvme.img"
	# shellcheck disable=SC2054 # the commas are QEMU's
	NVME_ARGS=(-drive "file=$XDIR/nvme.img,if=none,id=nvm,format=raw"
		-device nvme,serial=gpuprobe,drive=nvm)
fi
LOG=$XDIR/console.log
echo "xen: booting Xen 4.17, dom0 $KVER (log: $LOG, bound ${TIMEOUT}s)" >&2
# shellcheck disable=SC2086
vm_run_qemu "$LOG" "$QUIET" "$TIMEOUT" \
	-machine q35 \
	-accel "tcg,thread=${VM_TCG_THREAD:-multi}" -cpu "${XEN_CPU:-max,-rdtscp}" -smp 2 -m 3G \
	-nodefaults -no-user-config -display none -no-reboot \
	-serial stdio -monitor none \
	-kernel "$XEN" -append "$XEN_APPEND" \
	-initrd "$VMLINUZ $DOM0_APPEND,$INITRD" \
	-device intel-iommu,intremap=on \
	-device edu,dma_mask=0xffffffff \
	"${NVME_ARGS[@]}" \
	-fsdev local,id=out,path="$OUT",security_model=none \
	-device virtio-9p-pci,fsdev=out,mount_tag=out ${XEN_QEMU_ARGS:-}

# Xen's own failures: a panic, a fatal trap, a BUG or assertion
# or an instruction it could not emulate (-cpu max with RDTSCP: "SVM Insn len
# emulation failed", Documentation/vmtest.rst)
XEN_PROBLEM='Panic on CPU|FATAL TRAP|Xen BUG at|Assertion .* failed|FATAL PAGE FAULT|Dom0 crashed|domain_crash|Domain [0-9]+ .* crashed|Insn len emulation failed'
fail=0
if [ "$VM_QEMU_RC" = 124 ] || [ "$VM_QEMU_RC" = 137 ]; then
	echo "xen: FAIL: the run went past ${TIMEOUT}s; the console ends:" >&2
	tail -n 30 "$LOG" | sed 's/^/xen: | /' >&2
	fail=1
fi
if grep -Eq "$XEN_PROBLEM" "$LOG"; then
	echo "xen: FAIL: Xen reported a problem:" >&2
	grep -E -A30 "$XEN_PROBLEM" "$LOG" | head -n 40 >&2
	fail=1
fi
vm_kernel_problems "$LOG" "xen: dom0" && fail=1
for g in "$OUT"/guest-*/console.log; do
	[ -f "$g" ] || continue
	vm_kernel_problems "$g" "xen: $(basename "$(dirname "$g")")" && fail=1
done
if [ ! -f "$OUT/dom0.rc" ]; then
	echo "xen: FAIL: dom0 did not finish its command (see $LOG)" >&2
	exit 1
fi
dom0_rc=$(cat "$OUT/dom0.rc")
[ "$dom0_rc" = 0 ] || echo "xen: FAIL: dom0's command exited $dom0_rc" >&2
summary=$(sed -n '/GPUPROBE-VM-START/,/GPUPROBE-VM-EXIT/p' "$LOG" |
	grep -aE '^[0-9]+ passed, [0-9]+ failed' || true)
# every tally printed (dom0's and the guests'), added up
if [ -n "$summary" ]; then
	summary=$(echo "$summary" | awk -F'[ ,]+' '{ p += $1; f += $3; s += $5 }
		END { printf "%d passed, %d failed", p, f; if (s) printf ", %d skipped", s }')
fi
summary=$(vm_tally "$summary" "$fail" "$dom0_rc")
[ -z "$summary" ] || echo "xen: $summary"
[ "$fail" = 0 ] || exit 1
exit "$dom0_rc"
