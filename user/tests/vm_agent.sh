#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (make -C user vmtest-agent): `agent` and `record
# --guest` over vsock loopback (CID 1: Debian's kernel has vsock_loopback,
# the dev machine's has not) and over TCP on lo, both sides with the
# tracefs source on the NVMe drive: one merged file, machines of 2, a clock
# error bound.  KTAP-style lines; prints the bounds measured.
. /gpuprobe/tests/ktap.sh

for m in vsock vmw_vsock_virtio_transport_common vsock_loopback; do
	insmod /gpuprobe/$m.ko || echo "# insmod $m failed"
done
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
BDF=$(basename "$(readlink -f /sys/block/nvme0n1/device/device)")
echo "0123456789abcdef-vm" >/tmp/token
chmod 600 /tmp/token
IO="dd if=/dev/nvme0n1 of=/dev/null bs=4k count=200 iflag=direct 2>/dev/null"

for addr in vsock tcp; do
	if [ $addr = vsock ]; then listen=vsock::5999; guest=vsock:1:5999; else listen=tcp:127.0.0.1:5999; guest=$listen; fi
	gpuprobe-trace agent --once --listen $listen --token-file /tmp/token 2>/tmp/agent-$addr.log &
	agent=$!
	i=0; while ! grep -q listening /tmp/agent-$addr.log && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
	gpuprobe-trace record -q --source tracefs -d "$BDF" -o /tmp/$addr.trace --guest $guest \
		--token-file /tmp/token --guest-source tracefs --guest-target "$BDF" --guest-command "$IO"
	rc=$?
	check "$addr: record --guest exits 0" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || kill $agent
	wait $agent
	check "$addr: agent --once exits 0" [ $? -eq 0 ]
	gpuprobe-trace report /tmp/$addr.trace >/tmp/$addr.txt
	grep -E "^passthrough|clock:|interrupts: [0-9]+ host" /tmp/$addr.txt
	gpuprobe-trace report --json /tmp/$addr.trace >/tmp/$addr.json
	check "$addr: machines[] of 2" [ "$(grep -c '"role": "' /tmp/$addr.json)" -eq 2 ]
	bound=$(grep -o '"clock_error_ns": [0-9]*' /tmp/$addr.json | grep -o '[0-9]*$' | head -n1)
	echo "    $addr: clock error bound ${bound:-none} ns"
	check "$addr: a clock error bound stored" [ "${bound:-0}" -gt 0 ]
	check "$addr: complete" grep -q '"complete": true' /tmp/$addr.json
	# both sides trace the same drive: every guest interrupt is a host one
	check "$addr: no guest interrupt unpaired, no order violation" \
		sh -c "grep -q '\"irq_unpaired_guest\": 0,' /tmp/$addr.json && grep -q '\"order_violations\": 0,' /tmp/$addr.json"
done
finish
