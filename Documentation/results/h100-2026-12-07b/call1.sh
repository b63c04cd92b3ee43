#!/bin/bash
# session 13, call 1: the microbenchmark split (scripts/cupti-split.sh), then the
# launch-bound PyTorch loop with the two best recording choices it finds (scripts/cupti-pick.py)
set -u
cd "$(dirname "$0")" || exit 1
OUTR=$OUT; W=/tmp/c; rm -rf $W; mkdir -p $W/x
B=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | head -1); export BDF=$(echo ${B:4} | tr A-F a-f)
now() { date '+%Y/%m/%d %H:%M:%S.%3N'; }
{ nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv; uname -r; echo "BDF $BDF"; } >$W/x/env.txt 2>&1
{ echo "== $(now) before warm-up"; nvidia-smi -q -d CLOCK,PERFORMANCE; } >$W/x/clocks.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw --format=csv -l 2 >$W/x/clocks-log.csv 2>&1 &
SMI=$!
ls /usr/local/cuda*/extras/CUPTI/include/cupti_activity.h >>$W/x/env.txt 2>&1
python3 -c 'import torch; print("torch", torch.__version__)' >>$W/x/env.txt 2>&1
.gpu/cupti_launch_cost 200 200 100000 >$W/x/warmup.txt 2>&1
python3 scripts/examples/torch_cost.py launch 1500 >>$W/x/warmup.txt 2>&1
echo "$(now) split-micro start" >>$W/x/notes.txt
OUT=$W BUDGET_S=${SPLIT_S:-150} ROUNDS=12 bash scripts/cupti-split.sh >$W/x/split-micro.log 2>&1
echo "$(now) split-micro end" >>$W/x/notes.txt
python3 scripts/cupti-pick.py $W/split-micro/samples.txt \
	nooverhead=GPUPROBE_CUDA_LEAVE_OUT=overhead pinned=GPUPROBE_CUDA_TUNE=pinned=1 \
	devbuf=GPUPROBE_CUDA_TUNE=devbuf=32 flush=GPUPROBE_CUDA_TUNE=flush=500 \
	hostbuf=GPUPROBE_CUDA_TUNE=hostbuf=32768 perthread0=GPUPROBE_CUDA_TUNE=perthread=0 \
	noclock=GPUPROBE_CUDA_CLOCK_CHECK=0 >$W/x/picks.sh 2>&1
cat $W/x/picks.sh
set -a; . $W/x/picks.sh; set +a
echo "$(now) split-launch start: $PICKS" >>$W/x/notes.txt
OUT=$W SPLIT=1 REF=traced CONFIGS="untraced traced bare $PICKS" ROUNDS=12 BUDGET_S=${TORCH_S:-290} \
	timeout 400 bash scripts/h200-cost.sh launch >$W/x/split-launch.log 2>&1
echo "$(now) split-launch end rc $?" >>$W/x/notes.txt
{ echo "== $(now) after"; nvidia-smi -q -d CLOCK,PERFORMANCE; } >>$W/x/clocks.txt 2>&1
kill $SMI
cat $W/split-micro/summary.txt $W/split-launch/summary.txt
grep -h "gpuprobe (CUDA)" $W/split-micro/hwtrace-1.txt $W/split-micro/pinned-1.txt $W/split-micro/devbuf-1.txt 2>/dev/null | sort | uniq -c
tar -C $W -czf $OUTR/split-micro.tgz split-micro
tar -C $W -czf $OUTR/split-launch.tgz --exclude='*.trace' split-launch
tar -C $W/x -czf $OUTR/call1.tgz .
cp $W/split-micro/summary.txt $OUTR/summary-micro.txt; cp $W/split-launch/summary.txt $OUTR/summary-launch.txt 2>/dev/null
cat $W/x/notes.txt
