#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves that a tracepoint prototype which differs from a probe's fails the
# module's build (kmod/probe_types.h).  For each case, one object of the
# module is compiled against an installed kernel's headers with an overlay
# include directory searched first, holding a copy of one trace header:
#   - the copy as shipped: the object must compile;
#   - the copy with one parameter type of one tracepoint changed (sed): the
#     build must fail with the static assertion that names that probe and
#     that tracepoint.
# x86 KVM's arch/x86/kvm/trace.h is not in the headers packages: it comes
# from the matching /usr/src/linux-source-X.Y.tar.xz (which also checks the
# hand-written prototypes against the kernel's source); without the tarball
# those cases are skipped.
#
#   scripts/proto-check-test.sh     prints "ok"/"not ok"/"skip" per case and
#                                   "N passed, N failed, N skipped"; exit 0
#                                   when none failed
# PROTO_CHECK_DIR: the work directory (build/proto-check).
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
case ${1:-} in -h|--help) sed -n '3,20s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
WORK=${PROTO_CHECK_DIR:-$TOP/build/proto-check}
pass=0 fail=0 skip=0

rm -rf "$WORK/src" "$WORK/overlay"
mkdir -p "$WORK/src" "$WORK/overlay"
# the module's sources only, as the Makefile's build-module-copy takes them
rsync -a --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' --exclude='*.mod' \
	--exclude='*.mod.c' --exclude='modules.order' --exclude='Module.symvers' \
	--include='/Kbuild' --include='/kmod/***' --include='/include/***' \
	--include='/selftests/' --include='/selftests/gpuprobe/' \
	--include='/selftests/gpuprobe/edu/***' --exclude='*' ./ "$WORK/src/" || exit 1

# build KDIR OBJ [make args...]: compiles one object with the overlay first
build() {
	local kdir=$1 obj=$2
	shift 2
	rm -f "$WORK/src/$obj"
	nice -n 10 make -C "$kdir" M="$WORK/src" \
		NOSTDINC_FLAGS="-nostdinc -I$WORK/overlay" "$@" "$obj" \
		>"$WORK/build.log" 2>&1
}

# case NAME KDIR OBJ FILE HEADER_IN_OVERLAY SED PROBE TRACEPOINT [make args...]
check() {
	local name=$1 kdir=$2 obj=$3 file=$4 rel=$5 expr=$6 probe=$7 tp=$8
	local dst=$WORK/overlay/$rel msg
	shift 8
	rm -rf "$WORK/overlay"
	mkdir -p "$(dirname "$dst")"
	cp "$file" "$dst"
	if ! build "$kdir" "$obj" "$@"; then
		echo "not ok $name: the unchanged header does not build"
		grep -m5 'error' "$WORK/build.log"
		fail=$((fail + 1))
		return
	fi
	sed -i "$expr" "$dst"
	if cmp -s "$file" "$dst"; then
		echo "not ok $name: the sed expression changed nothing in $rel"
		fail=$((fail + 1))
		return
	fi
	msg="probe $probe() does not have the prototype of tracepoint $tp"
	if build "$kdir" "$obj" "$@"; then
		echo "not ok $name: built with $tp's prototype changed"
		fail=$((fail + 1))
	elif ! grep -q "static assertion failed: \"gpuprobe: $msg" "$WORK/build.log"; then
		echo "not ok $name: failed, but not with \"$msg\""
		grep -m5 'error' "$WORK/build.log"
		fail=$((fail + 1))
	else
		echo "ok $name"
		pass=$((pass + 1))
	fi
}

# x86 KVM's trace header of the source tarball for KDIR's X.Y, extracted once
kvm_trace_h() {
	local ver tar out
	ver=$(basename "$1" | sed -n 's/^linux-headers-\([0-9]*\.[0-9]*\).*/\1/p')
	tar=/usr/src/linux-source-$ver.tar.xz
	out=$WORK/ksrc-$ver/arch/x86/kvm/trace.h
	[ -r "$tar" ] || return 1
	if [ ! -s "$out" ] || [ "$tar" -nt "$out" ]; then
		mkdir -p "$(dirname "$out")"
		tar -xJOf "$tar" --wildcards '*/arch/x86/kvm/trace.h' >"$out.tmp" &&
			mv "$out.tmp" "$out" || return 1
	fi
	echo "$out"
}

found=0
for kdir in $(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V); do
	found=1
	k=$(basename "$kdir" | sed 's/^linux-headers-//; s/-amd64$//')
	inc=$kdir/include/trace/events
	# Debian's headers keep include/trace in the -common half, which the
	# tree's Makefile includes
	[ -r "$inc/irq.h" ] ||
		inc=$(sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$kdir/Makefile" | head -n1)/include/trace/events
	if [ ! -r "$inc/irq.h" ]; then
		echo "not ok $k: no include/trace/events/irq.h under $kdir"
		fail=$((fail + 1))
		continue
	fi
	check "$k irq_handler_entry" "$kdir" kmod/hooks.o "$inc/irq.h" trace/events/irq.h \
		'/TRACE_EVENT(irq_handler_entry,/,/TP_ARGS/ s/int irq,/unsigned int irq,/' \
		gpuprobe_irq_entry irq_handler_entry
	check "$k sched_switch" "$kdir" kmod/hooks.o "$inc/sched.h" trace/events/sched.h \
		'/TRACE_EVENT(sched_switch,/,/TP_ARGS/ s/unsigned int prev_state/unsigned long prev_state/' \
		gpuprobe_sched_switch sched_switch
	check "$k kvm_set_irq" "$kdir" kmod/kvm.o "$inc/kvm.h" trace/events/kvm.h \
		'/TRACE_EVENT(kvm_set_irq,/,/TP_ARGS/ s/int level,/bool level,/' \
		gpuprobe_kvm_set_irq kvm_set_irq
	if [ -r "$inc/dma.h" ]; then
		check "$k dma_unmap_sg" "$kdir" kmod/dma_tp.o "$inc/dma.h" trace/events/dma.h \
			'/TRACE_EVENT(dma_unmap_sg,/,/TP_ARGS/ s/int nents,/unsigned int nents,/' \
			tp_unmap_sg dma_unmap_sg
	fi
	if kvm_h=$(kvm_trace_h "$kdir"); then
		# the overlay copy stands in for the tree's arch/x86/kvm/trace.h
		check "$k kvm_inj_virq (arch/x86/kvm/trace.h)" "$kdir" kmod/kvm.o \
			"$kvm_h" kvm-x86/trace.h \
			'/TRACE_EVENT(kvm_inj_virq,/,/TP_ARGS/ s/bool reinjected/int reinjected/' \
			gpuprobe_kvm_inject kvm_inj_virq \
			GPUPROBE_KVM_X86_TRACE="$WORK/overlay/kvm-x86/trace.h"
	else
		echo "SKIP $k kvm_inj_virq: no linux-source tarball for $k"
		skip=$((skip + 1))
	fi
done
if [ "$found" = 0 ]; then
	echo "SKIP prototype checks: no kernel headers (scripts/deps.sh)"
	skip=$((skip + 1))
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
