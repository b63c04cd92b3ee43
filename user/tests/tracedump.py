#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Decode a gpuprobe trace file without the C reader.

Written from Documentation/trace-format.md (header, targets, records,
versions 2 and 3: chunks, the compact encoding, version 3's checks by
Debian's xxhsum) and the record structs of
include/uapi/linux/gpuprobe.h and inject/appevents.h, so that the committed
traces in tests/traces/ have expectations that do not come from the code
they test.  Standard library only; zstd chunks through the `zstandard`
module when it is there, else the `zstd` command.

    tracedump.py FILE              every field, one line per item (below)
    tracedump.py --summary FILE..  per file: chunks, counts per record type,
                                   the compact length codes used, sha256 of
                                   the full dump

Lines (tests/tracedump.c prints the same from the C reader's structs):
    header format_version= record_version= clock_id= source= start_ns=
           start_realtime_ns= app_events= host= kernel_release= tool_version=
           ntargets=                      strings: hex of the bytes before NUL
    target bdf= vendor= device= class= nvec= driver=
    vector index= irq= flags=
    record NAME type= size= cpu= flags= ts= FIELD=...   every field of the
           record's struct, in struct order, decimal (signed where the field
           is); char arrays as hex of all their bytes; tail=HEX: the bytes
           past the struct (records that grew).  A command record's
           strings follow its fields as arg=HEX each, then tail= its
           padding; a string record's text as text=HEX, then tail=.  A guest wrapper's carried
           record follows " |" as a record of its own.  Types the reader
           does not know are not printed (counted in unknown_records).
    end ts= cpu= flags= records= exit_status= reserved=
    summary records= unknown_records= seen_end=1 truncated=0
"""
import hashlib
import os
import shutil
import struct
import subprocess
import sys

HDR = [("type", "H"), ("size", "H"), ("cpu", "H"), ("flags", "H"), ("ts", "Q")]
SCHED = [("pid", "I"), ("tgid", "I"), ("prev_pid", "I"), ("target_cpu", "I")]
IOMMU = [("bdf", "I"), ("op", "I"), ("iova", "Q"), ("paddr", "Q"), ("size", "Q"),
         ("duration_ns", "Q")]
# record type -> (name, smallest valid size, fields after the header)
TYPES = {
    1: ("irq", 40, [("bdf", "I"), ("irq", "I"), ("vector", "I"), ("reserved", "I"),
                    ("duration_ns", "Q")]),
    2: ("lost", 24, [("count", "Q")]),
    3: ("target", 32, [("bdf", "I"), ("event", "I"), ("nvec", "I"), ("domain", "I")]),
    4: ("wakeup", 32, SCHED),
    5: ("switch", 32, SCHED),
    6: ("dma", 64, [("bdf", "I"), ("op", "H"), ("dir", "B"), ("reserved", "B"),
                    ("bytes", "Q"), ("dma_addr", "Q"), ("nents", "I"),
                    ("iommu_calls", "I"), ("duration_ns", "Q"), ("iommu_ns", "Q")]),
    7: ("iommu", 56, IOMMU),            # 64 bytes: domain and pid follow
    8: ("swiotlb", 32, [("bdf", "I"), ("dir", "I"), ("bytes", "Q")]),
    # 9 (the module's KVM records) is stored as 0x8005
    10: ("iommu_part", 56, [("bdf", "I"), ("part", "H"), ("depth", "H"),
                            ("duration_ns", "Q"), ("self_ns", "Q"), ("call_ts", "Q"),
                            ("domain", "I"), ("arg", "I")]),
    0x8001: ("irq_count", 40, [("bdf", "I"), ("irq", "I"), ("phase", "I"),
                               ("reserved", "I"), ("count", "Q")]),
    0x8002: ("end", 32, [("records", "Q"), ("exit_status", "i"), ("reserved", "I")]),
    0x8003: ("app", 152, [("magic", "H"), ("version", "B"), ("api", "B"), ("esize", "H"),
                          ("etype", "H"), ("kind", "I"), ("flags", "I"), ("pid", "I"),
                          ("tid", "I"), ("device", "I"), ("stream", "I"),
                          ("correlation", "Q"), ("start_ns", "Q"), ("end_ns", "Q"),
                          ("queued_ns", "Q"), ("bytes", "Q"), ("name", "64s")]),
    0x8004: ("vector", 32, [("bdf", "I"), ("irq", "I"), ("index", "I"), ("flags", "H"),
                            ("change", "H")]),
    0x8005: ("kvm", 56, [("bdf", "I"), ("host_irq", "I"), ("pid", "I"), ("tid", "I"),
                         ("vcpu", "I"), ("vector", "I"), ("stage", "H"), ("reserved", "H"),
                         ("level", "I"), ("msi_address", "Q")]),
    0x8006: ("machine", 280, [("machine", "I"), ("role", "I"), ("source", "I"),
                              ("ntargets", "I"), ("start_ns", "Q"),
                              ("start_realtime_ns", "Q"), ("host", "64s"),
                              ("kernel_release", "72s"), ("tool_version", "24s"),
                              ("address", "48s"), ("flags", "I"), ("exit_status", "i"),
                              ("records", "Q"), ("stop_ns", "Q")]),
    0x8007: ("guest", 40, [("machine", "I"), ("reserved", "I")]),
    0x8008: ("clock_sync", 56, [("machine", "I"), ("kind", "H"), ("samples", "H"),
                                ("offset_ns", "q"), ("error_ns", "Q"), ("drift_ppb", "q"),
                                ("guest_ns", "Q")]),
    0x800a: ("workload", 32, [("argc", "I"), ("nargs", "I"), ("len", "I"), ("flags", "I")]),
    0x800e: ("iommu_mode", 64, [("bdf", "I"), ("flags", "I"), ("pgsizes", "Q"),
                                ("vendor", "16s"), ("domain_type", "16s")]),
    0x800f: ("xen", 48, [("kind", "H"), ("flags", "H"), ("irq", "I"), ("vector", "I"),
                         ("cycles", "I"), ("tsc", "Q"), ("count", "Q")]),
    0x800b: ("delivery", 80, [("slots", "I"), ("high_water_cpu", "I"), ("high_water", "Q"),
                              ("wait_max_ns", "Q"), ("ring_dropped", "Q"), ("undelivered", "Q"),
                              ("overrun", "Q"), ("socket_overflows", "Q"), ("rcvbuf", "i"),
                              ("reserved", "I")]),
    0x800c: ("string", 40, [("hash", "Q"), ("len", "I"), ("flags", "I")]),
    # the exact clock (lib/tscclock.h): a machine's mono/TSC read, or a vCPU's KVM relation
    0x800d: ("tsc", 96, [("machine", "I"), ("kind", "H"), ("flags", "H"), ("cpu", "I"),
                         ("apic_id", "I"), ("mono_lo", "Q"), ("tsc", "Q"), ("mono_hi", "Q"),
                         ("tsc_offset", "q"), ("ratio", "Q"), ("frac_bits", "I"),
                         ("reserved", "I"), ("host_lo", "Q"), ("host_hi", "Q")]),
}
END = 0x8002
# compact tags 1-8: types 1-8; 9-12: 0x8001-0x8004
SLOT = {t: t for t in range(1, 9)}
SLOT.update({0x8001 + i: 9 + i for i in range(4)})
TEMPLATE_MAX = 256


class Bad(Exception):
    pass


def fields(buf, off, spec):
    """name=value strings of the fields spec at buf[off:], and the offset after them."""
    out = []
    for name, code in spec:
        n = struct.calcsize("<" + code)
        (v,) = struct.unpack_from("<" + code, buf, off)
        out.append("%s=%s" % (name, v.hex() if isinstance(v, bytes) else v))
        off += n
    return out, off


def tail(rec, off):
    return ["tail=" + rec[off:].hex()] if len(rec) > off else []


def machine_targets(rec, off, ntargets):
    out = []
    for _ in range(ntargets):
        if len(rec) - off < 48:
            break
        nvec = struct.unpack_from("<I", rec, off + 12)[0]
        if len(rec) - off - 48 < nvec * 16:
            break
        f, off = fields(rec, off, [("target.bdf", "I"), ("vendor", "H"), ("device", "H"),
                                   ("class", "I"), ("nvec", "I"), ("driver", "32s")])
        out += f
        for _ in range(nvec):
            f, off = fields(rec, off, [("vec.index", "I"), ("irq", "I"), ("flags", "I"),
                                       ("reserved", "I")])
            out += f
    return out + tail(rec, off)


def command_args(rec, off, length):
    """arg=HEX for each NUL-ended string of the text, then the padding."""
    if length > len(rec) - off:
        return tail(rec, off)
    text = rec[off:off + length]
    args = text.split(b"\0")[:-1] if text.endswith(b"\0") else text.split(b"\0")
    return ["arg=" + a.hex() for a in args] + tail(rec, off + length)


def record_line(rec):
    """NAME and every field of one record (bytes of its hdr.size)."""
    typ, size = struct.unpack_from("<HH", rec)
    name, least, spec = TYPES.get(typ, ("unknown", 0, None))
    out, off = fields(rec, 0, HDR)
    if spec is None or size < least:
        return " ".join([name] + out + tail(rec, 16))
    body, off = fields(rec, off, spec)
    out += body
    if typ == 7:
        if size >= 64:
            more, off = fields(rec, off, [("domain", "I"), ("pid", "I")])
            out += more
        out += tail(rec, off)
    elif typ == 0x8006:
        out += machine_targets(rec, off, struct.unpack_from("<I", rec, 28)[0])
    elif typ == 0x8007:
        if struct.unpack_from("<H", rec, 26)[0] != size - 24:
            raise Bad("a guest wrapper whose record is not its size minus 24")
        out += ["|", record_line(rec[24:])]
    elif typ == 0x800a:
        out += command_args(rec, off, struct.unpack_from("<I", rec, 24)[0])
    elif typ == 0x800c:
        length = struct.unpack_from("<I", rec, 24)[0]
        length = length if length <= len(rec) - off else 0
        out += ["text=" + rec[off:off + length].hex()] + tail(rec, off + length)
    else:
        out += tail(rec, off)
    return " ".join([name] + out)


def zstd_decompress(stored, size):
    try:
        import zstandard
        return zstandard.ZstdDecompressor().decompress(stored, max_output_size=size)
    except ImportError:
        pass
    if not shutil.which("zstd"):
        raise Bad("zstd chunks need python3-zstandard or the zstd command")
    return subprocess.run(["zstd", "-dcq"], input=stored, stdout=subprocess.PIPE,
                          check=True).stdout


def unzigzag(z):
    return (z >> 1) ^ -(z & 1)


def decode_compact(data, count, codes_seen):
    """count records of one chunk's compact encoding; the length codes used into codes_seen."""
    tmpl, prev, p, out = {}, 0, 0, []
    for _ in range(count):
        tag = data[p]
        p += 1
        if tag == 0:
            typ, size = struct.unpack_from("<HH", data, p)
            rec = bytes(data[p:p + size])
            p += size
            slot = SLOT.get(typ, 0)
        else:
            if tag not in tmpl:
                raise Bad("tag %d refers to no earlier record" % tag)
            t = tmpl[tag]
            nwords = len(t) // 4
            ncodes = nwords - 2         # the timestamp, word 1, words 4..
            ctrl = data[p:p + (ncodes + 3) // 4]
            p += len(ctrl)
            codes = [ctrl[c // 4] >> (c % 4 * 2) & 3 for c in range(ncodes)]
            codes_seen.add("ts%d" % codes[0])
            codes_seen.update("word%d" % c for c in codes[1:])
            n = (1, 2, 4, 8)[codes[0]]
            ts = (prev + unzigzag(int.from_bytes(data[p:p + n], "little"))) % (1 << 64)
            p += n
            words = list(struct.unpack("<%dI" % nwords, t))
            for c in range(1, ncodes):
                n = (0, 1, 2, 4)[codes[c]]
                w = 1 if c == 1 else c + 2
                words[w] = (words[w] + unzigzag(int.from_bytes(data[p:p + n], "little"))) % (1 << 32)
                p += n
            words[2], words[3] = ts & 0xffffffff, ts >> 32
            rec = struct.pack("<%dI" % nwords, *words)
            slot = tag
        if slot and len(rec) <= TEMPLATE_MAX:
            tmpl[slot] = rec
        prev = struct.unpack_from("<Q", rec, 8)[0]
        out.append(rec)
    if p != len(data):
        raise Bad("chunk: %d bytes left over" % (len(data) - p))
    return out


def xxh3_low32(data):
    """XXH3-64 (seed 0) of data, its low 32 bits: by Debian's xxhsum, not the reader's libxxhash call."""
    if not shutil.which("xxhsum"):
        raise Bad("version 3 chunk checks need xxhsum (Debian's xxhash package)")
    out = subprocess.run(["xxhsum", "-H3", "-"], input=bytes(data), stdout=subprocess.PIPE,
                         check=True).stdout.decode()
    return int(out.split()[-1], 16) & 0xffffffff


def chunks(buf, off, stats, version=2):
    """Records of version 2's or 3's chunks from off; version 3's checks verified."""
    hsize = 32 if version == 3 else 24
    while off < len(buf):
        magic, enc, stored, raw, count, encoded = struct.unpack_from("<4sIIIII", buf, off)
        if magic != b"GPCK" or enc not in (1, 3):
            raise Bad("bad chunk at offset %d" % off)
        if version == 3:
            data_check, header_check = struct.unpack_from("<II", buf, off + 24)
            if xxh3_low32(buf[off:off + 28]) != header_check:
                raise Bad("chunk at offset %d: its header check fails" % off)
            if xxh3_low32(buf[off + 32:off + 32 + stored]) != data_check:
                raise Bad("chunk at offset %d: its data check fails" % off)
            stats["checked"] = stats.get("checked", 0) + 1
        data = buf[off + hsize:off + hsize + stored]
        if enc == 3:
            data = zstd_decompress(bytes(data), encoded)
        if len(data) != encoded:
            raise Bad("chunk at offset %d: %d encoded bytes, header says %d"
                      % (off, len(data), encoded))
        recs = decode_compact(data, count, stats["codes"])
        if sum(len(r) for r in recs) != raw:
            raise Bad("chunk at offset %d: raw size" % off)
        stats["compact" if enc == 1 else "zstd"] += 1
        yield from recs
        off += hsize + stored


def flat(buf, off):
    while off < len(buf):
        size = struct.unpack_from("<H", buf, off + 2)[0]
        if size < 16 or size % 8 or off + size > len(buf):
            raise Bad("bad record size %d at offset %d" % (size, off))
        yield buf[off:off + size]
        off += size


def cstr(b):
    return b.split(b"\0", 1)[0].hex()


def dump(path):
    """The lines of the file, and its chunk and per-type counts."""
    with open(path, "rb") as f:
        buf = f.read()
    (magic, version, hsize, rver, clock, source, ntargets, start, start_rt, host, kernel,
     tool, app) = struct.unpack_from("<8sIIIIIIQQ64s72s24sI", buf)
    if magic != b"GPUPROBE" or version not in (1, 2, 3):
        raise Bad("not a trace of version 1, 2 or 3")
    lines = ["header format_version=%d record_version=%d clock_id=%d source=%d start_ns=%d "
             "start_realtime_ns=%d app_events=%d host=%s kernel_release=%s tool_version=%s "
             "ntargets=%d" % (version, rver, clock, source, start, start_rt, app, cstr(host),
                              cstr(kernel), cstr(tool), ntargets)]
    off = 240
    for _ in range(ntargets):
        bdf, vendor, device, cls, nvec, driver = struct.unpack_from("<IHHII32s", buf, off)
        lines.append("target bdf=%d vendor=%d device=%d class=%d nvec=%d driver=%s"
                     % (bdf, vendor, device, cls, nvec, cstr(driver)))
        off += 48
        for _ in range(nvec):
            lines.append("vector index=%d irq=%d flags=%d" % struct.unpack_from("<III", buf, off))
            off += 16
    if off != hsize:
        raise Bad("header size %d, targets end at %d" % (hsize, off))
    stats = {"compact": 0, "zstd": 0, "codes": set()}
    counts, records, unknown, end = {}, 0, 0, None
    for rec in (chunks(buf, hsize, stats, version) if version >= 2 else flat(buf, hsize)):
        typ = struct.unpack_from("<H", rec)[0]
        if end is not None:
            raise Bad("a record after the end record")
        if typ == END:
            end = rec
            continue
        records += 1
        if typ not in TYPES:
            unknown += 1
            continue
        counts[TYPES[typ][0]] = counts.get(TYPES[typ][0], 0) + 1
        lines.append("record " + record_line(rec))
    if end is None:
        raise Bad("no end record")
    n, status, reserved = struct.unpack_from("<QiI", end, 16)
    h = struct.unpack_from("<HHHHQ", end)
    if n != records:
        raise Bad("the end record counts %d records, the file holds %d" % (n, records))
    lines.append("end ts=%d cpu=%d flags=%d records=%d exit_status=%d reserved=%d"
                 % (h[4], h[2], h[3], n, status, reserved))
    lines.append("summary records=%d unknown_records=%d seen_end=1 truncated=0" % (records, unknown))
    stats.update(version=version, records=records, unknown=unknown)
    return lines, stats, counts


def main(argv):
    try:
        if len(argv) >= 3 and argv[1] == "--summary":
            for path in argv[2:]:
                lines, stats, counts = dump(path)
                text = "".join(line + "\n" for line in lines)
                name = os.path.basename(path)
                print("%s format_version=%d chunks_compact=%d chunks_zstd=%d records=%d unknown=%d"
                      % (name, stats["version"], stats["compact"], stats["zstd"],
                         stats["records"], stats["unknown"]))
                print("%s counts %s" % (name, " ".join("%s=%d" % kv for kv in sorted(counts.items()))))
                print("%s length codes used: %s" % (name, " ".join(sorted(stats["codes"])) or "none"))
                print("%s sha256=%s" % (name, hashlib.sha256(text.encode()).hexdigest()))
            return 0
        if len(argv) == 2:
            sys.stdout.write("".join(line + "\n" for line in dump(argv[1])[0]))
            return 0
    except (Bad, struct.error, IndexError, subprocess.CalledProcessError) as e:
        print("tracedump.py: %s" % e, file=sys.stderr)
        return 1
    print("usage:\n" + __doc__.split("\n\n")[2], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
