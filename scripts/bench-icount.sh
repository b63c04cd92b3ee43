#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-icount: the interrupt benchmark (selftests/gpuprobe/irq_bench.c)
# with the guest clock counting executed instructions (QEMU -icount
# shift=0,sleep=on: 1 ns = 1 instruction, summed over the vCPUs), so a cost
# is an exact count instead of a noisy TCG wall time.  Runs, each in a VM of
# its own, and prints them side by side:
#
#   1 vCPU          interrupts back to back, all configurations (-w)
#   1 vCPU again    the same: the figures must agree (determinism)
#   N vCPUs         the same with N vCPUs' rings (-c, default 16)
#   1 vCPU, trickle each interrupt raised from userspace and followed by
#                   5 ms of work (21 rounds of 400): a record every 5 ms,
#                   about ten to a drain (wake_ms 50)
#   2 and N vCPUs, trickle   the same; 2 against N compares rings alone
#                   (from 2 vCPUs on, the drain and the listener wake
#                   another vCPU)
#
# Configurations (irq_bench.c): gpuprobe watching edu (1 vector; also with
# its delivery held past the timed window, "held") or edu and
# the NVMe drive (65 vectors), ftrace's filtered irq events, and gpuprobe
# watching other devices (the NVMe drive's 64 vectors or a second edu's one)
# while edu interrupts.  Results: Documentation/benchmarks.md.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
STAT=$TOP/scripts/benchstat.py
OUT=${BENCH_OUT:-$TOP/build/bench-icount}
CPUS=16
ONLY=

usage() {
	cat <<'USAGE'
usage: scripts/bench-icount.sh [-c CPUS] [-o NAMES]

  -c CPUS   vCPUs of the many-CPU runs (default 16; QEMU q35 allows 288,
            the kernel's possible_cpus=128 caps what boots)
  -o NAMES  only these runs (comma-separated: one,again,many,trickle1,
            trickle2,trickleN)

Needs `make` first, and bookworm-backports' QEMU (scripts/backports-qemu.sh
unpacks it once).  Logs and samples: build/bench-icount/.
USAGE
}

while getopts "c:o:h" opt; do
	case $opt in
	c) CPUS=$OPTARG ;;
	o) ONLY=,$OPTARG, ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

VM_QEMU=$("$TOP/scripts/backports-qemu.sh" | tail -n1)
# tsc=reliable: the clock source a host has (scripts/bench.sh says why).
# With it 64 vCPUs boot under icount (-c 64: 616 s in all); without it a
# try had not booted after 11 minutes (it also skips the boot's TSC
# synchronisation checks between CPUs: a likely cause, not proven)
VM_APPEND="${VM_APPEND:-} tsc=reliable"
export VM_QEMU VM_ICOUNT=shift=0,sleep=on VM_EDUS=2 VM_APPEND
mkdir -p "$OUT"

RUNS=(one again many trickle1 trickle2 trickleN)
TRICKLE="-w -g 5000 -n 400 -r 21 -s 0"
declare -A TITLE=([one]="1 vCPU" [again]="1 vCPU again" [many]="$CPUS vCPUs"
		  [trickle1]="1 trickle" [trickle2]="2 trickle"
		  [trickleN]="$CPUS trickle")
declare -A SMP=([one]=1 [again]=1 [many]=$CPUS [trickle1]=1 [trickle2]=2
		[trickleN]=$CPUS)
declare -A ARGS=([one]="-w" [again]="-w" [many]="-w" [trickle1]="$TRICKLE"
		 [trickle2]="$TRICKLE" [trickleN]="$TRICKLE")
done_runs=()

for run in "${RUNS[@]}"; do
	[ -z "$ONLY" ] || [[ $ONLY == *",$run,"* ]] || continue
	echo "== ${TITLE[$run]}: scripts/vmtest.sh -- /gpuprobe/tests/irq_bench ${ARGS[$run]}" \
		"(VM_SMP=${SMP[$run]})" >&2
	t0=$(date +%s)
	# shellcheck disable=SC2086
	if ! VM_SMP=${SMP[$run]} VMDIR=$TOP/build/vm-icount \
		"$TOP/scripts/vmtest.sh" -t 900 -- /gpuprobe/tests/irq_bench ${ARGS[$run]} \
		>"$OUT/$run.log" 2>&1; then
		grep -v '^sample ' "$OUT/$run.log" | tail -n 20 >&2
		echo "bench-icount: the ${TITLE[$run]} run failed (log: $OUT/$run.log)" >&2
		exit 1
	fi
	awk '$1 == "sample" { print $2, $3 }' "$OUT/$run.log" >"$OUT/$run.samples"
	grep -E '^(# irq_bench|sustained)' "$OUT/$run.log" >&2 || true
	echo "   $(($(date +%s) - t0)) s" >&2
	done_runs+=("$run")
done
[ ${#done_runs[@]} -gt 0 ] || { echo "bench-icount: no run selected" >&2; exit 2; }

med() {	# run name
	python3 "$STAT" "$OUT/$1.samples" stat "$2" | awk '{ printf "%.0f\n", $1 }'
}

echo
echo "# instructions per edu interrupt (guest ns under -icount shift=0), medians"
printf '%-30s' ""
for run in "${done_runs[@]}"; do printf '%16s' "${TITLE[$run]}"; done
echo
for row in base added_gpuprobe added_held added_ftrace added_gpuprobe65 added_other added_other1; do
	case $row in
	base) label="base (nothing attached)" ;;
	added_gpuprobe) label="+ gpuprobe (edu, 1 vector)" ;;
	added_held) label="+ gpuprobe, delivery held" ;;
	added_ftrace) label="+ ftrace (irq==N filter)" ;;
	added_gpuprobe65) label="+ gpuprobe (65 vectors)" ;;
	added_other) label="+ non-target (64 watched)" ;;
	added_other1) label="+ non-target (1 watched)" ;;
	esac
	printf '%-30s' "$label"
	for run in "${done_runs[@]}"; do printf '%16s' "$(med "$run" "$row")"; done
	echo
done
echo
goal_rows() {	# title ratio
	echo "# $1: median of per-round ratios [bootstrap 95%], goal <= 0.5"
	for run in "${done_runs[@]}"; do
		read -r m lo hi verdict < <(python3 "$STAT" "$OUT/$run.samples" goal "$2" '<=' 0.5)
		printf '%-18s %s [%s, %s] %s\n' "${TITLE[$run]}" "$m" "$lo" "$hi" "$verdict"
	done
}
goal_rows "gpuprobe / ftrace added cost" added_gpuprobe/added_ftrace
echo
goal_rows "the probe alone, delivery held past the window (as ftrace's events wait unread) / ftrace" \
	added_held/added_ftrace
