#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (listed in selftests/gpuprobe/vm/list; also
# make -C user vmtest): the module and tracefs
# sources record the same NVMe workload; both must match the kernel's count.
PASSED=0
FAILED=0
N=0
pass() { N=$((N + 1)); echo "ok $N $1"; PASSED=$((PASSED + 1)); }
fail() { N=$((N + 1)); echo "not ok $N $1"; FAILED=$((FAILED + 1)); }
check() { n=$1; shift; if "$@"; then pass "$n"; else fail "$n"; fi; }

insmod /gpuprobe/gpuprobe.ko 2>/dev/null
BDF=$(basename "$(readlink -f /sys/block/nvme0n1/device/device)")
echo "NVMe at $BDF"
for src in module tracefs; do
	gpuprobe-trace record -q --source "$src" -d "$BDF" -o "/tmp/$src.trace" -- \
		dd if=/dev/nvme0n1 of=/dev/null bs=4k count=300 iflag=direct 2>/dev/null
	check "$src: record exits 0" [ $? -eq 0 ]
	gpuprobe-trace report "/tmp/$src.trace" >"/tmp/$src.txt"
	grep -E "irqs|kernel counted" "/tmp/$src.txt"
	total=$(awk '/kernel counted/ { s += $3 } END { print s + 0 }' "/tmp/$src.txt")
	echo "    $src: kernel counted $total in all"
	check "$src: every vector matches /proc/interrupts, 300 in all" \
		sh -c "! grep -q MISMATCH /tmp/$src.txt && [ $total -eq 300 ]"
	check "$src: no drops" grep -q "drops: none" "/tmp/$src.txt"
done
for src in module tracefs; do
	gpuprobe-trace record -q --source "$src" -d "$BDF" -o /tmp/exit.trace -- sh -c 'exit 7'
	check "$src: workload exit status 7 passed through" [ $? -eq 7 ]
done
gpuprobe-trace record -d "$BDF" -o /tmp/auto.trace -- true 2>/tmp/auto.err
check "auto picks the loaded module" grep -q "from module" /tmp/auto.err
gpuprobe-trace info >/tmp/info.txt
check "info shows the module and its caps" grep -q "module source: gpuprobe .* record version 1" /tmp/info.txt
rmmod gpuprobe
gpuprobe-trace info >/tmp/info.txt
check "info without the module says how to load it" grep -q "insmod kmod/gpuprobe.ko" /tmp/info.txt
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
