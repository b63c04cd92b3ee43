# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# Sourced by serve_module.sh and serve_tracefs.sh (inside the test VM):
# `gpuprobe-trace serve -d EDU` on 127.0.0.1, scraped with busybox wget,
# checked against the kernel's own count of edu's interrupts.
PORT=${PORT:-9477}
URL=http://127.0.0.1:$PORT/metrics
. /gpuprobe/tests/ktap.sh

# serve listens on 127.0.0.1: the debug kernel (allnoconfig + a fragment)
# has no IPv4
if [ ! -e /proc/net/tcp ]; then
	echo "1..0 # SKIP this kernel has no IPv4 (CONFIG_INET) for serve's 127.0.0.1"
	exit 4
fi
ip link set lo up
for m in gpuprobe_edu gpuprobe; do
	grep -q "^$m " /proc/modules && rmmod $m
done
insmod /gpuprobe/gpuprobe.ko || exit 1
insmod /gpuprobe/gpuprobe_edu.ko || exit 1
EDU=$(basename "$(dirname "$(grep -l 0x11e8 /sys/bus/pci/devices/*/device)")")
CTL=/sys/kernel/debug/gpuprobe_edu/$EDU
DRV=/sys/bus/pci/drivers/gpuprobe_edu
SEL="bdf=\"$EDU\""
echo "# edu at $EDU"

# edu's row of /proc/interrupts summed over the CPUs; 0 while unbound
proc_edu() {
	awk '/gpuprobe_edu/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i }
	     END { print s + 0 }' /proc/interrupts
}
edu_irq() { find "/sys/bus/pci/devices/$EDU/msi_irqs" -mindepth 1 -maxdepth 1 -exec basename {} \; 2>/dev/null; }
irq_ino() { stat -c %i "/sys/kernel/irq/$1" 2>/dev/null; }
raise() { echo "$1" >"$CTL/irq"; }

SCRAPES=0
scrape() {	# into /tmp/serve.prom; counts the scrapes made here
	SCRAPES=$((SCRAPES + 1))
	timeout 15 wget -q -O /tmp/serve.prom "$URL"
}
# value of the first sample of family $1 whose labels hold $2, or "none"
metric() {
	awk -v n="$1" -v l="$2" '(index($1, n "{") == 1 && index($1, l)) || $1 == n { print $2; f = 1; exit }
		END { if (!f) print "none" }' /tmp/serve.prom
}
served() { metric gpuprobe_interrupts_total "$SEL"; }
kernel() { metric gpuprobe_kernel_interrupts_total "$SEL"; }

# serve SOURCE in the background (SP), its stderr in /tmp/serve.err; waits
# for its "source running" line, without scraping
start_serve() {
	gpuprobe-trace serve --source "$1" -d "$EDU" --listen "127.0.0.1:$PORT" 2>/tmp/serve.err &
	SP=$!
	i=0
	while ! grep -q "$1 source running" /tmp/serve.err && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	check "serve says the $1 source is running" grep -q "$1 source running" /tmp/serve.err
}

# The kernel's count of edu's interrupts since serve's baseline, across
# rebinds (a rebound vector is a new irq whose row starts at 0): KSUM + proc_edu.
KSUM=0
SERVED=0 KERNEL=0 MISSED=0
baseline() { KSUM=$((0 - $(proc_edu))); }

# Scrapes and checks: served grew by $2, the kernel counter by $3, which
# equals the kernel's own count; they differ by exactly MISSED (interrupts
# while the module was away); neither went back.
expect() {	# label served-delta kernel-delta
	if ! scrape; then
		fail "$1: serve answers"
		return
	fi
	s=$(served) k=$(kernel) c=$((KSUM + $(proc_edu)))
	echo "# $1: served $s (was $SERVED), kernel counter $k (was $KERNEL), /proc/interrupts since the baseline $c"
	check "$1: gpuprobe_interrupts_total grew by $2" [ "$s" = $((SERVED + $2)) ]
	check "$1: gpuprobe_kernel_interrupts_total grew by $3 and equals /proc/interrupts" \
		sh -c "[ '$k' = $((KERNEL + $3)) ] && [ '$k' = $c ]"
	check "$1: the two differ by exactly the $MISSED missed" [ "$k" = "$((s + MISSED))" ]
	if [ "$s" != $((SERVED + $2)) ] || [ "$k" != $((KERNEL + $3)) ]; then
		grep -E '^gpuprobe_(source|target|interrupts|kernel)' /tmp/serve.prom | sed 's/^/# /'
		gpuprobe-trace info -d "$EDU" 2>&1 | sed -n '/^targets:/,$s/^/# info: /p'
	fi
	[ "$s" != none ] && [ "$s" -ge "$SERVED" ] && SERVED=$s
	[ "$k" != none ] && [ "$k" -ge "$KERNEL" ] && KERNEL=$k
}

bound_vectors() {	# bound-gauge vectors-gauge
	[ "$(metric gpuprobe_target_bound "$SEL")" = "$1" ] &&
		[ "$(metric gpuprobe_target_vectors "$SEL")" = "$2" ]
}

# edu unbound and bound again under serve: once with a scrape while
# unbound, once at once between two scrapes with more interrupts after than
# the new irq had counted before (then only the irq's identity says it is new)
rebind_checks() {
	irq1=$(edu_irq) ino1=$(irq_ino "$(edu_irq)")
	KSUM=$((KSUM + $(proc_edu)))
	check "unbind" sh -c "echo $EDU >$DRV/unbind"
	expect "unbound" 0 0
	check "target unbound, no vector" bound_vectors 0 0
	check "serve alive" kill -0 "$SP"
	check "bind" sh -c "echo $EDU >$DRV/bind"
	echo "# irq $irq1 (inode $ino1) before, $(edu_irq) (inode $(irq_ino "$(edu_irq)")) after the rebind"
	raise 100
	expect "rebound, 100 more" 100 100
	check "target bound again, one vector" bound_vectors 1 1

	irq1=$(edu_irq) ino1=$(irq_ino "$(edu_irq)")
	KSUM=$((KSUM + $(proc_edu)))
	check "unbind and bind at once" sh -c "echo $EDU >$DRV/unbind && echo $EDU >$DRV/bind"
	echo "# irq $irq1 (inode $ino1) before, $(edu_irq) (inode $(irq_ino "$(edu_irq)")) after the rebind"
	raise 150
	expect "rebound with no scrape in between, 150 more" 150 150
}

# SIGTERM: serve exits 0
stop_serve() {
	kill -TERM "$SP"
	wait "$SP"
	check "serve exits 0 on SIGTERM" [ $? -eq 0 ]
	sed 's/^/# serve: /' /tmp/serve.err
}
