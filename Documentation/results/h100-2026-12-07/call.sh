#!/bin/bash
# call.sh LOOP BUDGET_S [extra env via caller]: warm-up, clocks before/after, interleaved rounds, pack into $OUT
# (session 12 helper; lives in the ignored .gpu carry, not in the repo)
set -u
LOOP=$1; BUD=$2; OUTR=$OUT; W=/tmp/c; rm -rf $W; mkdir -p $W/x
B=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | head -1); export BDF=$(echo ${B:4} | tr A-F a-f)
echo "BDF $BDF" >$W/x/call-notes.txt
now() { date '+%Y/%m/%d %H:%M:%S.%3N'; }
{ echo "== $(now) before warm-up"; nvidia-smi -q -d CLOCK,PERFORMANCE; } >$W/x/clocks.txt 2>&1
Q=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw,temperature.gpu
nvidia-smi --query-gpu=clocks_event_reasons.active --format=csv,noheader >/dev/null 2>&1 && Q=$Q,clocks_event_reasons.active
nvidia-smi --query-gpu=$Q --format=csv -l 2 >$W/x/clocks-log.csv 2>&1 &
SMI=$!
WS=$(date +%s%N)
if [ "$LOOP" = launch ]; then python3 scripts/examples/torch_cost.py launch 3000; else python3 scripts/examples/torch_cost.py gpu 150; fi >$W/x/warmup.txt 2>&1
echo "warm-up $((($(date +%s%N) - WS) / 1000000)) ms" >>$W/x/call-notes.txt
{ echo "== $(now) after warm-up"; nvidia-smi -q -d CLOCK,PERFORMANCE; } >>$W/x/clocks.txt 2>&1
echo "script start $(now)" >>$W/x/call-notes.txt
OUT=$W BUDGET_S=$BUD timeout $((BUD + 60)) bash scripts/h200-cost.sh $LOOP 2>&1 | while IFS= read -r l; do echo "$(now) $l"; done >$W/x/script-log.txt
echo "script end $(now) rc ${PIPESTATUS[0]}" >>$W/x/call-notes.txt
{ echo "== $(now) after the rounds"; nvidia-smi -q -d CLOCK,PERFORMANCE; } >>$W/x/clocks.txt 2>&1
kill $SMI
for d in $W/*-$LOOP; do [ -s $d/samples.txt ] || continue; tar -C $W -czf $OUTR/$(basename $d).tgz --exclude='*.trace' --exclude='*.json' $(basename $d); cp $d/summary.txt $OUTR/summary-$(basename $d).txt 2>/dev/null; done
tar -C $W/x -czf $OUTR/call-$LOOP.tgz .
cat $W/*-$LOOP/summary.txt; tail -3 $W/x/script-log.txt; cat $W/x/call-notes.txt; grep -c . $W/x/clocks-log.csv
