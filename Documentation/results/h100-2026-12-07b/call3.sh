#!/bin/bash
# session 13, call 3: the GPU-bound loop again (untraced, traced, 10 rounds) to decide the 1 %
# goal, and the microbenchmark: what intercepting each launch costs, with and without CUPTI's
# kernel records
set -u
cd "$(dirname "$0")" || exit 1
OUTR=$OUT; W=/tmp/c; rm -rf $W; mkdir -p $W/x
B=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | head -1); export BDF=$(echo ${B:4} | tr A-F a-f)
now() { date '+%Y/%m/%d %H:%M:%S.%3N'; }
{ nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv; uname -r; echo "BDF $BDF"; } >$W/x/env.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw --format=csv -l 2 >$W/x/clocks-log.csv 2>&1 &
SMI=$!
python3 scripts/examples/torch_cost.py gpu 60 >$W/x/warmup.txt 2>&1
echo "$(now) gpu start" >>$W/x/notes.txt
OUT=$W REF=traced CONFIGS="untraced traced" ROUNDS=10 BUDGET_S=135 \
	timeout 170 bash scripts/h200-cost.sh gpu >$W/x/cost-gpu.log 2>&1
echo "$(now) gpu end rc $?" >>$W/x/notes.txt
tar -C $W -czf $OUTR/cost-gpu.tgz --exclude='*.trace' cost-gpu; cp $W/cost-gpu/summary.txt $OUTR/summary-cost-gpu.txt
OUT=$W BUDGET_S=60 ROUNDS=8 ARGS="1000 200 20000" CONFIGS="none default bare nokernels opscb opscbnoapi" \
	timeout 90 bash scripts/cupti-split.sh >$W/x/split-micro.log 2>&1
echo "$(now) micro end" >>$W/x/notes.txt
kill $SMI
cat $W/cost-gpu/summary.txt $W/split-micro/summary.txt
tar -C $W -czf $OUTR/split-micro.tgz split-micro
tar -C $W/x -czf $OUTR/call3.tgz .
cp $W/split-micro/summary.txt $OUTR/summary-split-micro.txt
cat $W/x/notes.txt
