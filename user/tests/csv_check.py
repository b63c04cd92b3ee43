#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every row of an `export --csv` against the trace as tracedump.py reads it.

    csv_check.py DUMP CSV

DUMP is tracedump.py's text of the trace (a decoder written from
Documentation/trace-format.md, not the C reader); CSV the tool's export of
the same file, read with python's csv module.  The expected row of each
record is built here from Documentation/csv-export.md's columns: which field
of which record type goes in which column, 0 (or an empty bdf) for what the
type lacks, addr and paddr in hexadecimal, a guest's record as guest_TYPE
with the wrapper's time and CPU, the workload's command as its arguments
(parsed back from the shell quoting here, compared with the record's).
Prints the first differences and exits 1 on any.
"""
import csv
import sys

COLUMNS = ("type,ts_ns,cpu,flags,bdf,irq,vector,duration_ns,op,dir,bytes,nents,"
           "addr,paddr,count,pid,prev_pid,target_cpu,command").split(",")
BDF_NONE = 4294967295


def bdf_text(v):
    """trace-format.md: domain << 16 | bus << 8 | devfn, written as lspci does."""
    return "%04x:%02x:%02x.%x" % (v >> 16, (v >> 8) & 0xff, (v >> 3) & 0x1f, v & 7)


def parse_record(text):
    """'NAME k=v k=v ...' -> (name, header dict, fields dict, args)."""
    words = text.split()
    name, pairs = words[0], [w.split("=", 1) for w in words[1:]]
    head = dict(pairs[:5])
    assert list(head) == ["type", "size", "cpu", "flags", "ts"], text
    fields, args = {}, []
    for k, v in pairs[5:]:
        if k == "arg" and name == "workload":
            args.append(bytes.fromhex(v).decode("utf-8", "surrogateescape"))
        elif k != "tail":
            fields.setdefault(k, v)
    return name, head, fields, args


# column <- field, per documented type (csv-export.md's column table)
MAP = {
    "irq": {"bdf": "bdf", "irq": "irq", "vector": "vector", "duration_ns": "duration_ns"},
    "lost": {"count": "count"},
    "wakeup": {"pid": "pid", "prev_pid": "prev_pid", "target_cpu": "target_cpu"},
    "switch": {"pid": "pid", "prev_pid": "prev_pid", "target_cpu": "target_cpu"},
    "dma": {"bdf": "bdf", "duration_ns": "duration_ns", "op": "op", "dir": "dir",
            "bytes": "bytes", "nents": "nents", "addr": "dma_addr"},
    "iommu": {"bdf": "bdf", "duration_ns": "duration_ns", "op": "op", "bytes": "size",
              "addr": "iova", "paddr": "paddr", "pid": "pid"},
    "swiotlb": {"bdf": "bdf", "dir": "dir", "bytes": "bytes"},
    "irq_count": {"bdf": "bdf", "irq": "irq", "op": "phase", "count": "count"},
    "kvm": {"bdf": "bdf", "irq": "host_irq", "vector": "vector", "op": "stage",
            "pid": "pid", "count": "vcpu", "addr": "msi_address"},
    "workload": {"count": "argc"},
    "target": {"bdf": "bdf", "op": "event", "count": "nvec"},
}
# types whose bdf is GPUPROBE_BDF_NONE when unattributed: an empty column then
UNATTRIBUTED = {"iommu", "kvm"}


def expected_row(line):
    outer, _, inner = line.partition(" | ")
    name, head, fields, args = parse_record(outer[len("record "):])
    prefix = ""
    if inner:
        prefix = "guest_"
        iname, ihead, fields, args = parse_record(inner)
        name, flags = iname, ihead["flags"]
    else:
        flags = head["flags"]
    row = dict.fromkeys(COLUMNS, "0")
    row.update(type=prefix + name, ts_ns=head["ts"], cpu=head["cpu"], flags=flags,
               bdf="", addr="0x0", paddr="0x0", command="")
    for col, field in MAP.get(name, {}).items():
        if field not in fields:		# an older module's shorter record
            continue
        v = int(fields[field])
        if col == "bdf":
            row[col] = "" if v == BDF_NONE and name in UNATTRIBUTED else bdf_text(v)
        elif col in ("addr", "paddr"):
            row[col] = hex(v)
        else:
            row[col] = str(v)
    return row, args


def shell_words(text):
    """The quoting csv-export.md names: bare words, '...', $'...' (C escapes)."""
    words, i, cur, have = [], 0, "", False
    while i < len(text):
        c = text[i]
        if c == " ":
            if have:
                words.append(cur)
            cur, have, i = "", False, i + 1
        elif c == "'":
            j = text.index("'", i + 1)
            cur, have, i = cur + text[i + 1:j], True, j + 1
        elif text.startswith("$'", i):
            i += 2
            while text[i] != "'":
                if text[i] == "\\":
                    e = text[i + 1]
                    if e == "x":
                        cur += chr(int(text[i + 2:i + 4], 16))
                        i += 4
                        continue
                    cur += {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b",
                            "e": "\x1b", "f": "\f", "v": "\v"}.get(e, e)
                    i += 2
                else:
                    cur += text[i]
                    i += 1
            have, i = True, i + 1
        elif c == "\\":
            cur, have, i = cur + text[i + 1], True, i + 2
        else:
            cur, have, i = cur + c, True, i + 1
    if have:
        words.append(cur)
    return words


def main(dump_path, csv_path):
    records = [line.rstrip("\n") for line in open(dump_path) if line.startswith("record ")]
    with open(csv_path, newline="") as f:
        rows = list(csv.reader(f))
    bad = []
    if not rows or rows[0] != COLUMNS:
        bad.append("header %r" % (rows[:1],))
    rows = rows[1:]
    if len(rows) != len(records):
        bad.append("%d rows for %d records" % (len(rows), len(records)))
    seen = set()
    for n, (line, got) in enumerate(zip(records, rows), 1):
        want, args = expected_row(line)
        if len(got) != len(COLUMNS):
            bad.append("row %d: %d columns" % (n, len(got)))
            continue
        got = dict(zip(COLUMNS, got))
        if want["type"].endswith("workload") and args:
            want["command"] = args
            got["command"] = shell_words(got["command"])
        for col in COLUMNS:
            if got[col] != want[col]:
                bad.append("row %d (%s): %s is %r, the record says %r" %
                           (n, want["type"], col, got[col], want[col]))
        seen.add(want["type"])
    for line in bad[:12]:
        print(line)
    if bad:
        sys.exit(1)
    print("%d rows, every column as the records say (%d types: %s)" %
          (len(rows), len(seen), " ".join(sorted(seen))))


if __name__ == "__main__":
    main(*sys.argv[1:3])
