#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-nontarget: what gpuprobe costs another device's DMA -- the VM's
# NVMe drive under O_DIRECT reads, gpuprobe loaded and recording DMA and
# IOMMU events with edu as its target -- against neither module loaded and
# against empty probes at the same addresses (gpuprobe_floor.ko: the probe
# mechanism's own cost; with counters=1 also gpuprobe's counting kprobes
# beside its kretprobes, "floorc"; with counters=1 parts=1 also empty probes
# where a START attaches the IOMMU parts hooks, "floorp"); and the same for a second edu device's maps from
# its driver (4 KiB map+unmap pairs, 64-segment scatterlists), which wait
# for no device and so count exactly under -icount, where the NVMe reads
# do not (nontarget_bench.c says why).  selftests/gpuprobe/nontarget_bench.c
# interleaves the three configurations round by round in one VM.
#
# Kernels: Debian 12's 6.1 (gpuprobe's kretprobe path) and bookworm-
# backports' 6.12 (its tracepoint path, the module of build/knext).  Clocks:
# "icount", the guest clock counting executed instructions (QEMU -icount
# shift=0,sleep=on, as make bench-icount), and "wall", TCG time.  Each pair
# is a VM of its own, one after the other.  Results: Documentation/benchmarks.md.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
STAT=$TOP/scripts/benchstat.py
OUT=${BENCH_OUT:-$TOP/build/bench-nontarget}
KERNELS="6.1 6.12"
CLOCKS="icount wall"
ARGS=
PRINT_ONLY=

usage() {
	cat <<'USAGE'
usage: scripts/bench-nontarget.sh [-k KERNELS] [-c CLOCKS] [-r ROUNDS] [-n READS] [-p]

  -k KERNELS  6.1, 6.12 or both (default "6.1 6.12")
  -c CLOCKS   icount, wall or both (default "icount wall")
  -r ROUNDS   rounds of the configurations (nontarget_bench's default 11)
  -n READS    reads per sample (default 400)
  -p          run nothing: print the tables of the samples already in
              build/bench-nontarget/ (BENCH_OUT)

Needs `make` and `make modules-next` first, and bookworm-backports' QEMU
(scripts/backports-qemu.sh unpacks it once).  Logs and samples:
build/bench-nontarget/.
USAGE
}

while getopts "k:c:r:n:ph" opt; do
	case $opt in
	k) KERNELS=$OPTARG ;;
	c) CLOCKS=$OPTARG ;;
	r) ARGS="$ARGS -r $OPTARG" ;;
	n) ARGS="$ARGS -n $OPTARG" ;;
	p) PRINT_ONLY=1 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

mkdir -p "$OUT"
runs=()
if [ -n "$PRINT_ONLY" ]; then
	for k in $KERNELS; do
		for c in $CLOCKS; do runs+=("$k-$c"); done
	done
	KERNELS=
else
	VM_QEMU=$("$TOP/scripts/backports-qemu.sh" | tail -n1)
	export VM_QEMU
fi

for k in $KERNELS; do
	# BENCH_MODDIR_61, BENCH_MODDIR_612: other builds (a "before")
	case $k in
	6.1) moddir=${BENCH_MODDIR_61:-$TOP} ;;
	6.12) moddir=${BENCH_MODDIR_612:-$TOP/build/knext} ;;
	*) echo "bench-nontarget: unknown kernel $k" >&2; exit 2 ;;
	esac
	floor=$moddir/selftests/gpuprobe/floor/gpuprobe_floor.ko
	[ -f "$floor" ] || { echo "bench-nontarget: $floor missing: make${k#6.1}" \
		"(6.12: make modules-next)" >&2; exit 2; }
	for c in $CLOCKS; do
		run=$k-$c
		icount='' spin=''
		# -s: a spinner takes the reads' waits (nontarget_bench.c says why)
		[ "$c" = icount ] && icount=shift=0,sleep=on spin=-s
		echo "== $run: nontarget_bench -e $spin$ARGS ($moddir)" >&2
		t0=$(date +%s)
		# single-threaded TCG for 6.12: scripts/test.sh says why
		# shellcheck disable=SC2086
		if ! VM_ICOUNT=$icount VM_TCG_THREAD=single VM_SMP=1 VM_EDUS=2 \
			VM_EXTRA_FILES=$floor MODDIR=$moddir \
			VMDIR=$TOP/build/vm-nontarget-$k \
			"$TOP/scripts/vmtest.sh" -t 1800 -a tsc=reliable -- \
			/gpuprobe/tests/nontarget_bench -e $spin $ARGS >"$OUT/$run.log" 2>&1; then
			grep -v '^sample ' "$OUT/$run.log" | tail -n 20 >&2
			echo "bench-nontarget: the $run run failed (log: $OUT/$run.log)" >&2
			exit 1
		fi
		awk '$1 == "sample" { print $2, $3 }' "$OUT/$run.log" >"$OUT/$run.samples"
		grep -a '^# ' "$OUT/$run.log" | grep -v '^# vm' >&2 || true
		echo "   $(($(date +%s) - t0)) s" >&2
		runs+=("$run")
	done
done

row() {	# run label name
	read -r m lo hi n < <(python3 "$STAT" "$OUT/$1.samples" stat "$3")
	printf '  %-34s %10s  [%s, %s]  n=%s\n' "$2" "$m" "$lo" "$hi" "$n"
}
ratio() {	# run label A B
	read -r m lo hi n < <(python3 "$STAT" "$OUT/$1.samples" ratio "$3" "$4")
	printf '  %-34s %10s  [%s, %s]  n=%s\n' "$2" "$m" "$lo" "$hi" "$n"
}

echo
echo "# per O_DIRECT read of the NVMe drive (4k, 64k) and per map+unmap of the"
echo "# other edu (pair, sg64), neither gpuprobe's target: medians [bootstrap 95%]"
echo "# icount runs: instructions (guest ns under -icount shift=0) less the spinner's; wall runs: ns"
for run in "${runs[@]}"; do
	echo "$run"
	for s in 4k 64k pair sg64; do
		grep -q "^base_$s " "$OUT/$run.samples" || continue
		row "$run" "$s: base (no module)" "base_$s"
		row "$run" "$s: probed calls per read" "calls_$s"
		row "$run" "$s:   of them DMA-API" "calls_dma_$s"
		row "$run" "$s:   of them IOMMU map/unmap" "calls_iommu_$s"
		grep -q "^calls_parts_$s " "$OUT/$run.samples" &&
			row "$run" "$s: parts functions' calls (floorp)" "calls_parts_$s"
		row "$run" "$s: + floor (empty probes)" "added_floor_$s"
		grep -q "^added_floorc_$s " "$OUT/$run.samples" &&
			row "$run" "$s: + floor, counting kprobes too" "added_floorc_$s"
		grep -q "^added_floorp_$s " "$OUT/$run.samples" &&
			row "$run" "$s: + floorc, parts probes too" "added_floorp_$s"
		row "$run" "$s: + gpuprobe (edu target)" "added_gpuprobe_$s"
		row "$run" "$s: gpuprobe above the floor" "above_floor_$s"
		grep -q "^above_floorp_$s " "$OUT/$run.samples" &&
			row "$run" "$s: gpuprobe above floorp" "above_floorp_$s"
		ratio "$run" "$s: + floor per probed call" "added_floor_$s" "calls_$s"
		ratio "$run" "$s: + gpuprobe per probed call" "added_gpuprobe_$s" "calls_$s"
		ratio "$run" "$s: above floor per probed call" "above_floor_$s" "calls_$s"
		grep -q "^above_floorc_$s " "$OUT/$run.samples" &&
			ratio "$run" "$s: above floorc per probed call" "above_floorc_$s" "calls_$s"
		grep -q "^above_floorp_$s " "$OUT/$run.samples" &&
			ratio "$run" "$s: above floorp per probed call" "above_floorp_$s" "calls_$s"
		grep -q "^calls_all_$s " "$OUT/$run.samples" &&
			ratio "$run" "$s: above floorp per call, parts too" "above_floorp_$s" "calls_all_$s"
		grep -q "^calls_all_$s " "$OUT/$run.samples" &&
			ratio "$run" "$s: + floorp per call, parts too" "added_floorp_$s" "calls_all_$s"
		if grep -q "^added_noparts_$s " "$OUT/$run.samples"; then
			row "$run" "$s: + gpuprobe, no parts asked" "added_noparts_$s"
			row "$run" "$s: no parts, above floorc" "above_floorc_noparts_$s"
			ratio "$run" "$s: no parts, above floorc per call" "above_floorc_noparts_$s" "calls_$s"
			ratio "$run" "$s: gpuprobe no parts / floorc" "noparts_$s" "floorc_$s"
		fi
		ratio "$run" "$s: gpuprobe / base" "gpuprobe_$s" "base_$s"
		grep -q "^floorp_$s " "$OUT/$run.samples" &&
			ratio "$run" "$s: gpuprobe / floorp" "gpuprobe_$s" "floorp_$s"
		ratio "$run" "$s: gpuprobe added / floor added" "added_gpuprobe_$s" "added_floor_$s"
	done
done
