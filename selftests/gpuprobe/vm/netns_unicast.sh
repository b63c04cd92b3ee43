#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# netns against the module as built for kernels without a privileged events
# group (make modules-unicast; scripts/test.sh copies it in with
# VM_EXTRA_FILES), where records are unicast to the session's owner in its
# network namespace.
ko=/gpuprobe/unicast/gpuprobe.ko
if [ ! -f "$ko" ]; then
	echo "1..0 # SKIP no $ko (make modules-unicast; VM_EXTRA_FILES=build/unicast)"
	exit 4
fi
GPUPROBE_KO=$ko exec ./netns "$@"
