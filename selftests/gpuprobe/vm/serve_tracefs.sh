#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (selftests/gpuprobe/vm/list): `gpuprobe-trace serve
# --source tracefs -d EDU` (the module loaded but not used) while edu raises
# exact numbers of interrupts and maps exact numbers of bytes, and is
# unbound and bound again.  Every scrape must hold the kernel's count
# exactly, and the DMA counters the exact calls and bytes.
MAPS=64
SIZE=4096
# shellcheck source=selftests/gpuprobe/vm/serve_lib.sh
. "$(dirname "$0")/serve_lib.sh"

# DMA counter $1 of op $2, 0 before the op's first call
dma() { v=$(metric "$1" "op=\"$2\""); [ "$v" = none ] && v=0; echo "$v"; }

start_serve tracefs
baseline
raise 30
expect "before the first scrape" 30 30
check "source up, tracefs" grep -q '^gpuprobe_source_up{source="tracefs"} 1$' /tmp/serve.prom
maps0=$(dma gpuprobe_dma_calls_total map_page) bytes0=$(dma gpuprobe_dma_bytes_total map_page)
unmaps0=$(dma gpuprobe_dma_calls_total unmap_page)
echo "$MAPS $SIZE" >"$CTL/mapbench"
raise 100
expect "100 more, $MAPS maps of $SIZE bytes" 100 100
maps=$(($(dma gpuprobe_dma_calls_total map_page) - maps0))
bytes=$(($(dma gpuprobe_dma_bytes_total map_page) - bytes0))
unmaps=$(($(dma gpuprobe_dma_calls_total unmap_page) - unmaps0))
echo "# map_page: $maps calls, $bytes bytes; unmap_page: $unmaps calls"
check "$MAPS map_page calls of $((MAPS * SIZE)) bytes" [ "$maps $bytes" = "$MAPS $((MAPS * SIZE))" ]
check "$MAPS unmap_page calls" [ "$unmaps" = $MAPS ]

rebind_checks

stop_serve
check "no tracefs instance left" sh -c "! ls /sys/kernel/tracing/instances | grep -q '^gpuprobe-'"
rmmod gpuprobe_edu
rmmod gpuprobe
finish
