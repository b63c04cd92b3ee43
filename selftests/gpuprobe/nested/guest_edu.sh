#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the nested tests (host_tests.sh): 1 interrupt (marker A),
# M dma_map_single()/dma_unmap_single() pairs of 4 KiB, 1 interrupt
# (marker B), N-1 more; the edu driver's counters to /out/edu-stats.
# usage: guest_edu.sh N M
exec sh /gpuprobe/tests/edu_raise.sh irq:1 "mapbench:$2" irq:1 "irq:$(($1 - 1))"
