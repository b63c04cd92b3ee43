#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Checks that include/uapi/linux/gpuprobe.h matches the ynl spec.

Every command, attribute (per set), event type and record struct member in
Documentation/netlink/specs/gpuprobe.yaml must have the same number (or
offset) in the header, and the header must have nothing the spec lacks.
The spec itself must validate against the kernel's own ynl schema
(genetlink-legacy: the records are structs), taken from Debian's
linux-source-6.12 (make spec-schema extracts it), and every operation must
have a doc.  Prints KTAP-ish lines and "N passed, N failed".
"""
import re
import subprocess
import sys
import tempfile
import os

import yaml

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(TOP, "Documentation/netlink/specs/gpuprobe.yaml")
HDR = os.path.join(TOP, "include/uapi/linux/gpuprobe.h")
SCHEMA = os.environ.get("GPUPROBE_YNL_SCHEMA", os.path.join(
    TOP, "build/ksrc-next/Documentation/netlink/genetlink-legacy.yaml"))


def schema_errors(spec):
    """The spec's violations of the kernel's genetlink-legacy schema."""
    import jsonschema
    schema = yaml.safe_load(open(SCHEMA))
    validator = jsonschema.Draft7Validator(schema)
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message)
            for e in validator.iter_errors(spec)]


def c_name(*parts):
    return "_".join(p.upper().replace("-", "_") for p in parts if p)


def header_enums(text):
    """name -> value for every enumerator in the header."""
    values = {}
    for body in re.findall(r"enum\s+\w+\s*{(.*?)};", text, re.S):
        nxt = 0
        for line in body.split("\n"):
            line = re.sub(r"/\*.*?\*/", "", line).strip().rstrip(",")
            if not line:
                continue
            m = re.match(r"(\w+)\s*(?:=\s*(.+))?$", line)
            if not m:
                continue
            if m.group(2):
                nxt = eval(m.group(2).replace("<<", "<<"), {}, values)
            values[m.group(1)] = nxt
            nxt += 1
    return values


def struct_offsets(structs):
    """Compiles the header and returns offsetof() of each member."""
    src = ["#include <stddef.h>", "#include <stdio.h>",
           '#include "linux/gpuprobe.h"', "int main(void) {"]
    for s, members in structs.items():
        for m in members:
            src.append('printf("%s.%s %%zu\\n", offsetof(struct gpuprobe_%s, %s));'
                       % (s, m, s.replace("-", "_"), m.replace("-", "_")))
        src.append('printf("%s.SIZE %%zu\\n", sizeof(struct gpuprobe_%s));'
                   % (s, s.replace("-", "_")))
    src.append("return 0; }")
    with tempfile.TemporaryDirectory() as d:
        c = os.path.join(d, "o.c")
        exe = os.path.join(d, "o")
        open(c, "w").write("\n".join(src))
        subprocess.run(["cc", "-I", os.path.join(TOP, "include/uapi"),
                        "-o", exe, c], check=True)
        out = subprocess.run([exe], check=True, capture_output=True,
                             text=True).stdout
    return dict(line.split() for line in out.splitlines())


def main():
    spec = yaml.safe_load(open(SPEC))
    hdr = open(HDR).read()
    enums = header_enums(hdr)
    results = []

    def check(name, ok, detail=""):
        results.append(ok)
        print(("ok" if ok else "not ok") + " %d %s%s" %
              (len(results), name, "" if ok else " # " + detail))

    # the spec against the kernel's schema
    if not os.path.exists(SCHEMA):
        check("spec validates against genetlink-legacy.yaml", False,
              "%s missing: run make spec-schema" % SCHEMA)
    else:
        errs = schema_errors(spec)
        check("spec validates against genetlink-legacy.yaml", not errs,
              "; ".join(errs[:5]))
    for op in spec["operations"]["list"]:
        check("op %s has a doc" % op["name"], bool(op.get("doc")))

    # commands
    want = {}
    for i, op in enumerate(spec["operations"]["list"]):
        want[c_name("GPUPROBE_CMD", op["name"])] = op.get("value", i + 1)
    for name, val in want.items():
        check("cmd " + name, enums.get(name) == val,
              "header %s, spec %s" % (enums.get(name), val))
    extra = [n for n in enums if n.startswith("GPUPROBE_CMD_")
             and n not in want and n not in ("GPUPROBE_CMD_UNSPEC",
                                             "__GPUPROBE_CMD_MAX")]
    check("cmd: nothing beyond the spec", not extra, str(extra))

    # attribute sets
    prefixes = {"gpuprobe": "GPUPROBE_A"}
    for aset in spec["attribute-sets"]:
        prefix = prefixes.get(aset["name"], c_name("GPUPROBE_A", aset["name"]))
        nxt = 1
        names = set()
        for a in aset["attributes"]:
            val = a.get("value", nxt)
            nxt = val + 1
            name = c_name(prefix, a["name"])
            names.add(name)
            check("attr " + name, enums.get(name) == val,
                  "header %s, spec %s" % (enums.get(name), val))
        pre = prefix + "_"
        extra = [n for n in enums if n.startswith(pre) and n not in names
                 and not n.endswith("_UNSPEC")
                 and not any(n.startswith(pre + s.upper() + "_")
                             for s in ("HOOK", "TARGET", "VECTOR", "STATS",
                                       "HIST") if prefix == "GPUPROBE_A")]
        check("attr set %s: nothing beyond the spec" % aset["name"],
              not extra, str(extra))

    # enums and records
    defs = {d["name"]: d for d in spec["definitions"]}
    for i, e in enumerate(defs["event-type"]["entries"]):
        name = c_name("GPUPROBE_EV", e)
        check("event " + name, enums.get(name) == i,
              "header %s, spec %s" % (enums.get(name), i))
    for dname, prefix in (("target-event", "GPUPROBE_TARGET"),
                          ("dma-op", "GPUPROBE_DMA"),
                          ("iommu-op", "GPUPROBE_IOMMU")):
        d = defs[dname]
        for i, e in enumerate(d["entries"]):
            val = d.get("value-start", 0) + i
            name = c_name(prefix, e)
            check("enum " + name, enums.get(name) == val,
                  "header %s, spec %s" % (enums.get(name), val))
    for i, e in enumerate(defs["cap"]["entries"]):
        name = c_name("GPUPROBE_CAP", e)
        check("cap " + name, enums.get(name) == 1 << i,
              "header %s, spec %s" % (enums.get(name), 1 << i))

    sizes = {"u8": 1, "u16": 2, "u32": 4, "u64": 8}
    structs = {d["name"]: [m["name"] for m in d["members"]]
               for d in spec["definitions"] if d["type"] == "struct"}
    offs = struct_offsets(structs)
    for sname, members in structs.items():
        off = 0
        for m in defs[sname]["members"]:
            key = "%s.%s" % (sname, m["name"])
            check("struct " + key, int(offs[key]) == off,
                  "header offset %s, spec %d" % (offs[key], off))
            off += int(m["len"]) if m["type"] == "binary" else sizes[m["type"]]
        check("struct %s size" % sname, int(offs[sname + ".SIZE"]) == off,
              "header %s, spec %d" % (offs[sname + ".SIZE"], off))

    passed = sum(results)
    print("%d passed, %d failed" % (passed, len(results) - passed))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
