#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of base_table.sh: edu's driver loaded, `probe --api edu` of R
# rounds untraced (/out/guest.json, the driver's counters after it in
# /out/guest-stats), then gpuprobe.ko (for --guest-source module) and the
# agent for one traced session of the host's `record --guest vsock:3` (the
# host is CID 2; it runs the probe again).
# usage: guest_probe.sh R
insmod /gpuprobe/gpuprobe_edu.ko || exit 1
gpuprobe-trace probe --api edu --rounds "$1" -o /out/guest.json >/out/guest-probe.txt 2>&1 ||
	exit 1
cat /sys/kernel/debug/gpuprobe_edu/*/stats >/out/guest-stats
insmod /gpuprobe/gpuprobe.ko || exit 1
echo "nested-base-table-token" >/tmp/token
chmod 600 /tmp/token
: >/out/untraced.done
exec gpuprobe-trace agent --once --listen vsock --token-file /tmp/token --timeout 60
