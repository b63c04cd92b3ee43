#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The main job on the embedded default: boots the test VM (emulated IOMMU +
# QEMU's edu device), loads gpuprobe, drives a known interrupt and DMA
# workload on the edu device and prints gpuprobe's report of it.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
exec "$TOP/scripts/vmtest.sh" -t 600 -- sh /gpuprobe/tests/demo.sh "$@"
