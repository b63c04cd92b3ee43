#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (selftests/gpuprobe/vm/list, issue 30): a burst of
# PAIRS dma_map_single()/dma_unmap_single() pairs of 4 KiB by the edu
# driver's mapbench, pinned to CPU 0, while READERS O_DIRECT readers of the
# NVMe drive run on CPU 0 too, recorded by the module source.  Every record
# must arrive: the edu driver's own counters say PAIRS maps and unmaps were
# made, the trace holds PAIRS map_page and unmap_page calls and PAIRS IOMMU
# maps and unmaps of the edu, and nothing is reported lost.  (Before the
# 16 MiB receive buffer each run lost 1214 to 14604 records: the listener's
# socket, capped at 416 KiB, overran.)
#
#   burst.sh [PAIRS [READERS [ROUNDS]]]
PAIRS=${1:-20000}
READERS=${2:-2}
ROUNDS=${3:-1}
. /gpuprobe/tests/burst_lib.sh
if [ "$READERS" -gt 0 ] && [ ! -b /dev/nvme0n1 ]; then
	echo "1..0 # SKIP no NVMe drive for the readers"
	exit 4
fi

r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	start_readers "$READERS"
	burst module "$PAIRS"
	check "round $r: the readers stopped" stop_readers
	# shellcheck disable=SC2046 # six numbers
	set -- $(counts /tmp/burst.trace)
	echo "# round $r: $PAIRS pairs in $SECS s, $READERS readers:" \
		"edu driver $DM maps $DU unmaps; trace map_page $1 unmap_page $2" \
		"iommu map $3 unmap $4; lost $5, $6 reports without a count"
	sed 's/^/# /' /tmp/burst.err
	check "round $r: record exits 0" [ "$RC" -eq 0 ]
	check "round $r: the edu driver made $PAIRS maps and unmaps" [ "$DM $DU" = "$PAIRS $PAIRS" ]
	check "round $r: $PAIRS map_page and unmap_page calls traced" [ "$1 $2" = "$PAIRS $PAIRS" ]
	check "round $r: $PAIRS IOMMU maps and unmaps traced" [ "$3 $4" = "$PAIRS $PAIRS" ]
	check "round $r: nothing lost" [ "$5 $6" = "0 0" ]
	# the module's delivery is in the trace itself, as record printed it
	check "round $r: the trace holds the module's delivery, 0 dropped by the rings, 0 undelivered" \
		sh -c 'gpuprobe-trace report /tmp/burst.trace | grep -q "module delivery: fullest ring [1-9][0-9]* of [0-9]* records (CPU [0-9]*), longest wait for the drain [0-9.]* ms; 0 dropped by the rings, 0 undelivered"'
done
rmmod gpuprobe_edu
rmmod gpuprobe
finish
