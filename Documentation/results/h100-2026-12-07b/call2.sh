#!/bin/bash
# session 13, call 2: the GPU-bound loop (untraced, traced, noinject, 5 rounds), a short
# microbenchmark of GPUPROBE_CUDA_OPS=callbacks, then the launch-bound loop (untraced, traced,
# noinject, opscb) for what is left
set -u
cd "$(dirname "$0")" || exit 1
OUTR=$OUT; W=/tmp/c; rm -rf $W; mkdir -p $W/x
B=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | head -1); export BDF=$(echo ${B:4} | tr A-F a-f)
now() { date '+%Y/%m/%d %H:%M:%S.%3N'; }
{ nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv; uname -r; echo "BDF $BDF"; } >$W/x/env.txt 2>&1
{ echo "== $(now) before warm-up"; nvidia-smi -q -d CLOCK,PERFORMANCE; } >$W/x/clocks.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw --format=csv -l 2 >$W/x/clocks-log.csv 2>&1 &
SMI=$!
python3 scripts/examples/torch_cost.py gpu 60 >$W/x/warmup.txt 2>&1
echo "$(now) gpu start" >>$W/x/notes.txt
OUT=$W REF=traced CONFIGS="untraced traced noinject" ROUNDS=5 BUDGET_S=170 \
	timeout 240 bash scripts/h200-cost.sh gpu >$W/x/cost-gpu.log 2>&1
echo "$(now) gpu end rc $?" >>$W/x/notes.txt
tar -C $W -czf $OUTR/cost-gpu.tgz --exclude='*.trace' cost-gpu; cp $W/cost-gpu/summary.txt $OUTR/summary-cost-gpu.txt
python3 scripts/examples/torch_cost.py launch 1500 >>$W/x/warmup.txt 2>&1
OUT=$W BUDGET_S=25 ROUNDS=10 CONFIGS="none default opscb" bash scripts/cupti-split.sh >$W/x/split-micro.log 2>&1
echo "$(now) micro end" >>$W/x/notes.txt
export CFG_opscb="GPUPROBE_CUDA_OPS=callbacks"
OUT=$W REF=traced CONFIGS="untraced traced noinject opscb" ROUNDS=10 BUDGET_S=${LAUNCH_S:-200} \
	timeout 280 bash scripts/h200-cost.sh launch >$W/x/cost-launch.log 2>&1
echo "$(now) launch end rc $?" >>$W/x/notes.txt
{ echo "== $(now) after"; nvidia-smi -q -d CLOCK,PERFORMANCE; } >>$W/x/clocks.txt 2>&1
kill $SMI
cat $W/cost-gpu/summary.txt $W/split-micro/summary.txt $W/cost-launch/summary.txt
grep -h "gpuprobe (CUDA)" $W/cost-launch/report-opscb.txt 2>/dev/null | head -5
tar -C $W -czf $OUTR/cost-gpu.tgz --exclude='*.trace' cost-gpu
tar -C $W -czf $OUTR/cost-launch.tgz --exclude='*.trace' cost-launch
tar -C $W -czf $OUTR/split-micro.tgz split-micro
tar -C $W/x -czf $OUTR/call2.tgz .
for d in cost-gpu cost-launch split-micro; do cp $W/$d/summary.txt $OUTR/summary-$d.txt 2>/dev/null; done
cat $W/x/notes.txt
