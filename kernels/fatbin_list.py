#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""List the entries of a CUDA fatbin ("ELF sm_90", "PTX compute_90") where
cuobjdump is not installed. Layout (stable since CUDA 4): a 16-byte header
(magic 0xBA55ED50, u16 version, u16 header size, u64 payload size), then
entries: u16 kind (1 PTX, 2 ELF), u16, u32 header size, u64 payload size,
..., u32 arch at offset 28."""
import struct
import sys


def entries(data):
    magic, _, hsize, fsize = struct.unpack_from("<IHHQ", data, 0)
    if magic != 0xBA55ED50:
        raise SystemExit("not a fatbin (magic %#x)" % magic)
    off, end = hsize, hsize + fsize
    while off + 32 <= min(end, len(data)):
        kind, _, ehsize, esize = struct.unpack_from("<HHIQ", data, off)
        arch = struct.unpack_from("<I", data, off + 28)[0]
        yield {1: "PTX", 2: "ELF"}.get(kind, "kind%d" % kind), arch
        off += ehsize + esize


if __name__ == "__main__":
    for kind, arch in entries(open(sys.argv[1], "rb").read()):
        print("%s %s_%d" % (kind, "sm" if kind == "ELF" else "compute", arch))
