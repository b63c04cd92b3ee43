#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `serve` scraped by a real Prometheus server (Debian's prometheus) on
# loopback while direct I/O hits the virtio disk behind /dev/vda: PromQL
# through Prometheus's HTTP API must give, in every scrape, exactly the
# interrupt count the kernel counted (the kernel's counter is read in the
# same scrape: Documentation/fleet.md), the workload's interrupts must be
# there, and promtool must accept the exposition.  Also: no root needed to
# scrape, unknown paths 404, the tracefs instance removed at SIGTERM.
. "$(dirname "$0")/common.sh"

need_tracefs_disk "serve + Prometheus"
for tool in prometheus promtool curl python3; do
	if ! command -v $tool >/dev/null; then
		skip "serve + Prometheus" "no $tool (scripts/deps.sh installs it)"
		finish
	fi
done
echo "    /dev/$DISK is virtio on PCI $BDF"
MNT=$(df --output=target "/dev/$DISK" 2>/dev/null | tail -1)
[ "$(df --output=source /var/tmp | tail -1)" = "/dev/$DISK" ] && MNT=/var/tmp
T=$(mktemp -d "$MNT/gpuprobe-serve.XXXXXX")
chmod 755 "$T"
SERVE_PORT=$((20000 + $$ % 5000))
PROM_PORT=$((SERVE_PORT + 5000))
SERVE_PID= PROM_PID=
cleanup() {
	[ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
	[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

proc_interrupts_total() {	# sum of every CPU column of the device's rows
	awk -v dev="$BDF" '$0 ~ dev { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts
}

proc_before=$(proc_interrupts_total)
"$GPT" serve -q --source tracefs -d "$BDF" --listen "127.0.0.1:$SERVE_PORT" 2>"$T/serve.err" &
SERVE_PID=$!
up=0
for _ in $(seq 50); do
	curl -sf "http://127.0.0.1:$SERVE_PORT/metrics" >"$T/first.prom" 2>/dev/null && { up=1; break; }
	sleep 0.1
done
check "serve answers on 127.0.0.1:$SERVE_PORT" [ $up -eq 1 ]
check "promtool check metrics accepts the exposition" sh -c "promtool check metrics <'$T/first.prom'"
check "source up, tracefs" grep -q '^gpuprobe_source_up{source="tracefs"} 1$' "$T/first.prom"
check "scraping needs no root (nobody)" \
	sh -c "setpriv --reuid=65534 --regid=65534 --clear-groups curl -sf http://127.0.0.1:$SERVE_PORT/metrics | grep -q gpuprobe_interrupts_total"
check "unknown path: 404" [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SERVE_PORT/nope")" = 404 ]
check "POST refused: 405" [ "$(curl -s -o /dev/null -w '%{http_code}' -d x "http://127.0.0.1:$SERVE_PORT/metrics")" = 405 ]

cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: gpuprobe
    static_configs:
      - targets: ['127.0.0.1:$SERVE_PORT']
EOF
python3 - "$(dirname "$0")/../../Documentation/grafana-gpuprobe.json" >"$T/dash.rules.yml" <<'PY'
import json, sys
print("groups:\n- name: dashboard\n  rules:")
for n, t in enumerate(t for p in json.load(open(sys.argv[1]))["panels"] for t in p["targets"]):
    e = t["expr"].replace("$bdf", ".*").replace("$role", ".*")
    print(f"  - record: dashboard:expr{n}\n    expr: {json.dumps(e)}")
PY
check "every Grafana dashboard query is valid PromQL (promtool check rules)" \
	sh -c "promtool check rules '$T/dash.rules.yml' >/dev/null"
check "promtool check config" sh -c "promtool check config '$T/prometheus.yml' >/dev/null"
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" \
	--web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn 2>"$T/prom.err" &
PROM_PID=$!
API="http://127.0.0.1:$PROM_PORT/api/v1"

query() {	# query PROMQL [TIME]: the first sample's value, or "none"
	curl -sf --get "$API/query" --data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"} |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")'
}

up=none
for _ in $(seq 100); do
	up=$(query 'up{job="gpuprobe"}' 2>/dev/null)
	[ "$up" = 1 ] && break
	sleep 0.2
done
check "Prometheus scrapes serve (up == 1)" [ "$up" = 1 ]

SEL="bdf=\"$BDF\""
sleep 2
t1=$(date +%s.%N)
WRITES=300
for _ in $(seq $WRITES); do
	dd if=/dev/zero of="$T/dd.bin" bs=4k count=1 oflag=direct conv=fsync 2>/dev/null || break
done
sleep 3
t2=$(date +%s.%N)
proc_after=$(proc_interrupts_total)

served1=$(query "sum(gpuprobe_interrupts_total{$SEL})" "$t1")
served2=$(query "sum(gpuprobe_interrupts_total{$SEL})" "$t2")
kernel1=$(query "sum(gpuprobe_kernel_interrupts_total{$SEL})" "$t1")
kernel2=$(query "sum(gpuprobe_kernel_interrupts_total{$SEL})" "$t2")
worst=$(query "max_over_time((abs(sum(gpuprobe_interrupts_total{$SEL}) - sum(gpuprobe_kernel_interrupts_total{$SEL})))[30s:500ms])" "$t2")
scrapes=$(query "count_over_time(gpuprobe_scrapes_total[30s])" "$t2")
echo "    PromQL at t1: served $served1 kernel $kernel1; at t2: served $served2 kernel $kernel2;" \
	"largest difference over $scrapes scrapes: $worst; /proc/interrupts delta around it all $((proc_after - proc_before))"
check "served == kernel count at t1 (same scrape)" [ "$served1" = "$kernel1" ]
check "served == kernel count at t2 (same scrape)" [ "$served2" = "$kernel2" ]
check "every scrape in the last 30 s: served == kernel (max |difference| 0)" [ "$worst" = 0 ]
check "the workload's $WRITES synchronous writes raised at least $WRITES interrupts in the window" \
	python3 -c "import sys; sys.exit(0 if float('$served2') - float('$served1') >= $WRITES else 1)"
check "the kernel counter is within /proc/interrupts' delta around the whole run" \
	python3 -c "import sys; sys.exit(0 if float('$kernel2') <= $((proc_after - proc_before)) else 1)"
hq=$(query "histogram_quantile(0.5, sum by (le) (gpuprobe_interrupt_handler_duration_seconds_bucket{$SEL}))" "$t2")
check "handler-time p50 from the histogram is a duration (0 < p50 < 1 s): $hq" \
	python3 -c "import sys; sys.exit(0 if 0 < float('$hq') < 1 else 1)"

curl -sf "http://127.0.0.1:$SERVE_PORT/metrics" >"$T/last.prom"
check "promtool check metrics after the workload" sh -c "promtool check metrics <'$T/last.prom'"
check "no records lost" grep -q '^gpuprobe_lost_records_total{source="tracefs"} 0$' "$T/last.prom"
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$SERVE_PID/status")
echo "    serve RSS ${rss} KiB"
check "serve's RSS stays under 64 MiB" [ "${rss:-999999}" -lt 65536 ]

kill "$PROM_PID"; wait "$PROM_PID" 2>/dev/null; PROM_PID=
spid=$SERVE_PID
check "serve's tracefs instance exists while it runs" sh -c "ls $TRACING/instances | grep -q '^gpuprobe-$spid'"
kill -TERM "$SERVE_PID"; wait "$SERVE_PID"; rc=$?; SERVE_PID=
check "SIGTERM: serve exits 0" [ $rc -eq 0 ]
check "SIGTERM: its tracefs instance is gone" sh -c "! ls $TRACING/instances | grep -q '^gpuprobe-$spid'"
[ -s "$T/serve.err" ] && sed 's/^/    serve: /' "$T/serve.err"
finish
