#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of merged_tests.sh: edu's driver loaded, then the agent for one
# session of the host's `record --guest vsock:3` (the host is CID 2).
insmod /gpuprobe/gpuprobe_edu.ko || exit 1
echo "nested-merged-test-token" >/tmp/token
chmod 600 /tmp/token
exec gpuprobe-trace agent --once --listen vsock --token-file /tmp/token --timeout 60
