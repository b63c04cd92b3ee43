#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (selftests/gpuprobe/vm/list): `gpuprobe-trace serve
# --source module -d EDU` left running on 127.0.0.1 while the edu device
# raises exact numbers of interrupts (each waited for), the module is
# unloaded and loaded again, and edu's driver is unbound and bound again.
# In every scrape the counters must hold exactly what the kernel counted
# (/proc/interrupts), interrupts raised while the module was away must show
# as the kernel's only (the documented "missed"), counters must never go
# back, scraping needs no root, and serve's resident memory must not grow
# with scrapes (Documentation/fleet.md).
RSS_SCRAPES=${RSS_SCRAPES:-200}
RSS_GROWTH_MAX_KB=${RSS_GROWTH_MAX_KB:-256}
# shellcheck source=selftests/gpuprobe/vm/serve_lib.sh
. "$(dirname "$0")/serve_lib.sh"

# 1. interrupts before serve's first scrape count from the session's start
start_serve module
baseline
echo "# edu irq $(edu_irq), /proc/interrupts $(proc_edu) before"
raise 30
expect "before the first scrape" 30 30
check "source up, module" grep -q '^gpuprobe_source_up{source="module"} 1$' /tmp/serve.prom
check "target bound, one vector" bound_vectors 1 1
raise 100
expect "100 more" 100 100
check "the handler-time histogram holds every interrupt" \
	[ "$(metric gpuprobe_interrupt_handler_duration_seconds_count "$SEL")" = "$SERVED" ]

# 2. the module unloaded under serve, interrupts while it is away, loaded again
check "rmmod gpuprobe while serve runs" rmmod gpuprobe
raise 20
MISSED=20
expect "module unloaded, 20 raised" 0 20
check "serve alive, source down" grep -q '^gpuprobe_source_up{source="module"} 0$' /tmp/serve.prom
uptime_cs() { awk '{ sub(/\./, "", $1); print $1 + 0 }' /proc/uptime; }
t0=$(uptime_cs)
insmod /gpuprobe/gpuprobe.ko
i=0
while [ $i -lt 100 ]; do
	scrape && grep -q '^gpuprobe_source_up{source="module"} 1$' /tmp/serve.prom && break
	sleep 0.2
	i=$((i + 1))
done
echo "# source up again $(($(uptime_cs) - t0))0 ms after insmod (polled every 0.2 s)"
check "source up again after insmod" grep -q '^gpuprobe_source_up{source="module"} 1$' /tmp/serve.prom
check "one reconnection counted" \
	[ "$(metric gpuprobe_source_reconnects_total 'source="module"')" = 1 ]
raise 100
expect "reloaded, 100 more" 100 100
check "serve said the source went down and came back" \
	sh -c "grep -q 'module source down' /tmp/serve.err && grep -q 'module source reconnected' /tmp/serve.err"

# 3. unloaded and loaded again between two scrapes: serve notices by itself
check "rmmod and insmod at once" sh -c "rmmod gpuprobe && insmod /gpuprobe/gpuprobe.ko"
sleep 5
raise 50
expect "reloaded with no scrape in between, 50 more" 50 50
check "source up, a second reconnection" sh -c \
	"grep -q '^gpuprobe_source_up{source=\"module\"} 1$' /tmp/serve.prom &&
	 [ $(metric gpuprobe_source_reconnects_total 'source="module"') = 2 ]"

# 4. edu unbound and bound again
rebind_checks

# 5. scraping needs no root; memory does not grow with scrapes
SCRAPES=$((SCRAPES + 1))
as_nobody timeout 15 wget -q -O - "$URL" >/tmp/nobody.prom
check "nobody (uid 65534, no capabilities) can scrape" sh -c \
	"[ \$(as_nobody id -u) = 65534 ] && grep -q '^gpuprobe_interrupts_total{$SEL' /tmp/nobody.prom"
for i in $(seq 20); do scrape; done
rss0=$(awk '/^VmRSS:/ { print $2 }' "/proc/$SP/status")
for i in $(seq "$RSS_SCRAPES"); do scrape || break; done
rss1=$(awk '/^VmRSS:/ { print $2 }' "/proc/$SP/status")
echo "# VmRSS $rss0 kB before $RSS_SCRAPES scrapes, $rss1 kB after"
check "VmRSS grew by at most $RSS_GROWTH_MAX_KB kB over $RSS_SCRAPES scrapes" \
	[ $((rss1 - rss0)) -le "$RSS_GROWTH_MAX_KB" ]
check "gpuprobe_scrapes_total counts every scrape ($SCRAPES)" \
	[ "$(metric gpuprobe_scrapes_total "")" = "$SCRAPES" ]
expect "after the scrapes" 0 0

# 6. SIGTERM: serve exits 0 and its module session ends with it
stop_serve
gpuprobe-trace record -q --source module -d "$EDU" -o /tmp/after.trace -- true
check "the module is free for another session" [ $? -eq 0 ]
rmmod gpuprobe_edu
rmmod gpuprobe
finish
