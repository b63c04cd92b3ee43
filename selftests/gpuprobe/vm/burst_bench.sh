#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (scripts/bench-burst.sh, issue 30): the highest
# rate of DMA map/unmap records a source holds with nothing lost, in bursts
# of PAIRS mapbench pairs on CPU 0 paced by a busy wait of GAP ns after
# each pair (GAPS, slowest first; 0 is as fast as the CPU maps), with
# READERS O_DIRECT readers of the NVMe drive on CPU 0 and without.
#
#   burst_bench.sh [-o DIR] [-s SOURCES] [PAIRS [GAPS [READERS]]]
#
# -o DIR: gpuprobe.ko and gpuprobe-trace from DIR (an older build: the
# benchmark's "before"); -s: the sources, default "module tracefs" (tracefs:
# gpuprobe-trace's ftrace instance with its kprobe events, i.e. ftrace's
# ring at the same rate).  What a run lost is the larger of what the trace
# reports lost and what it misses of the edu driver's own count of pairs
# (4 records a pair for the module source: map_page, unmap_page, IOMMU map
# and unmap; 6 events for tracefs: the map's and unmap's entry and return
# kprobe events, iommu map and unmap, whose IOMMU events carry no device and
# are not counted here).
#
# Prints "sample NAME VALUE" lines (scripts/benchstat.py) and, per source and
# reader count, the fastest run with 0 lost and the slowest with a loss.
SOURCES="module tracefs"
# shellcheck disable=SC2034 # BURST_KO: read by burst_lib.sh
while getopts "o:s:" opt; do
	case $opt in
	o) BURST_KO=$OPTARG/gpuprobe.ko; PATH=$OPTARG:$PATH; export PATH ;;
	s) SOURCES=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
PAIRS=${1:-20000}
GAPS=${2:-"40000 20000 10000 5000 2500 0"}
READERS=${3:-2}
. /gpuprobe/tests/burst_lib.sh
[ -b /dev/nvme0n1 ] || READERS=0
RDS=0
[ "$READERS" -gt 0 ] && RDS="0 $READERS"

for src in $SOURCES; do
	per=4
	[ "$src" = tracefs ] && per=6
	for rd in $RDS; do
		held=0 first_loss=
		for gap in $GAPS; do
			start_readers "$rd"
			burst "$src" "$PAIRS" "$gap"
			stop_readers
			# shellcheck disable=SC2046 # six numbers
			set -- $(counts /tmp/burst.trace)
			if [ "$RC" -ne 0 ] || [ "$DM $DU" != "$PAIRS $PAIRS" ]; then
				echo "# $src, $rd readers, gap $gap ns: the run failed (record $RC, edu $DM/$DU)"
				sed 's/^/# /' /tmp/burst.err
				continue
			fi
			missing=$(awk -v p="$PAIRS" -v a="$1" -v b="$2" -v c="$3" -v d="$4" -v s="$src" '
				function pos(x) { return x > 0 ? x : 0 }
				BEGIN { m = pos(p - a) + pos(p - b)
					if (s == "module") print m + pos(p - c) + pos(p - d)
					else print m * 2 }')
			lost=$(($5 > missing ? $5 : missing))
			rate=$(awk -v n=$((PAIRS * per)) -v s="$SECS" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')
			tag=${src}_r${rd}_gap$gap
			echo "# $src, $rd readers, gap $gap ns: $PAIRS pairs in $SECS s," \
				"$rate records/s, lost $lost (reported $5 in $6 count-less reports too)"
			grep 'module delivery' /tmp/burst.err | sed 's/^/#   /'
			echo "sample burst_${tag}_rate $rate"
			echo "sample burst_${tag}_lost $lost"
			if [ "$lost" -eq 0 ]; then
				[ "$rate" -gt "$held" ] && held=$rate
			elif [ -z "$first_loss" ] || [ "$rate" -lt "$first_loss" ]; then
				first_loss=$rate
			fi
		done
		echo "# $src, $rd readers: held with 0 lost up to $held records/s;" \
			"slowest run with a loss: ${first_loss:-none}"
		echo "sample burst_${src}_r${rd}_held $held"
	done
done
rmmod gpuprobe_edu
rmmod gpuprobe
