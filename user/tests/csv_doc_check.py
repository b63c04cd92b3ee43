#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every op code and flag bit a CSV row can carry is in csv-export.md with
its value: the values are computed here from the C headers (enums counted
from their first initialiser, flags from their shifts), not from the tool."""
import re
import sys

uapi, tracefile, doc = (open(p).read() for p in sys.argv[1:4])
want = {}
for enum in ("gpuprobe_dma_op", "gpuprobe_iommu_op", "gpuprobe_kvm_stage",
             "gpuprobe_target_event", "irq_count_phase"):
    body = re.search(r"enum %s \{(.*?)\};" % enum, uapi + tracefile, re.S).group(1)
    value = 0
    for line in body.splitlines():
        m = re.match(r"\s*([A-Z_0-9]+)\s*(?:=\s*(\d+))?,", line)
        if m:
            value = int(m.group(2)) if m.group(2) else value + 1
            want[m.group(1)] = str(value)
for m in re.finditer(r"#define ((?:GPUPROBE|TRACEFILE)_[A-Z_]+)\s+\(1 << (\d+)\)", uapi + tracefile):
    if m.group(1).startswith(("GPUPROBE_IRQ_", "GPUPROBE_DMA_", "GPUPROBE_IOMMU_",
                              "GPUPROBE_KVM_", "TRACEFILE_LOST_")):
        want[m.group(1)] = hex(1 << int(m.group(2)))
missing = [f"{n}={v}" for n, v in want.items()
           if not re.search(r"\| %s \| `%s`" % (re.escape(v), n), doc)]
if len(want) < 20 or missing:
    sys.exit(f"csv-export.md lacks {missing} (of {len(want)} codes)")
print(f"{len(want)} codes documented")
