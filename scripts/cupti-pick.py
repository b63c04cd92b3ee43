#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Pick the recording choices worth a PyTorch run from a cupti-split.sh run.

  cupti-pick.py SAMPLES CANDIDATE...

A candidate is NAME=ENV (ENV: VAR=value pairs joined by ';').  Prints shell
assignments: PICKS="a b [combo]" and CFG_a=..., CFG_b=..., CFG_combo=...:
the two candidates with the lowest median step time against default whose
interval lies below 1 (or the two lowest medians, when none does), and,
when two or more lie below 1, all of those together (GPUPROBE_CUDA_TUNE and
GPUPROBE_CUDA_LEAVE_OUT items joined with ',').
"""
import subprocess
import sys


def ratio(samples, name):
    out = subprocess.run([sys.executable, __file__.replace("cupti-pick.py", "benchstat.py"),
                          samples, "ratio", name + "-step", "default-step"],
                         capture_output=True, text=True).stdout.split()
    try:
        return float(out[0]), float(out[1]), float(out[2])
    except (IndexError, ValueError):
        return None


def main():
    samples, cands = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
    scored = []
    for name, env in cands.items():
        r = ratio(samples, name)
        if r:
            scored.append((r[0], r[2], name))
    scored.sort()
    below = [s for s in scored if s[1] < 1.0]
    picks = [s[2] for s in (below or scored)[:2]]
    lines = ['CFG_%s="%s"' % (p, cands[p].replace(";", " ")) for p in picks]
    if len(below) >= 2:
        merged = {}
        for s in below:
            for kv in cands[s[2]].split(";"):
                k, v = kv.split("=", 1)
                merged[k] = merged[k] + "," + v if k in merged and k.endswith(("TUNE", "LEAVE_OUT")) else v
        lines.append('CFG_combo="%s"' % " ".join("%s=%s" % kv for kv in merged.items()))
        picks.append("combo")
    print("\n".join(lines))
    print('PICKS="%s"' % " ".join(picks))
    for s in scored:
        print("# %s %.4f (upper %.4f) against default" % (s[2], s[0], s[1]))


main()
