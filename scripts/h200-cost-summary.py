#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The attribution side of scripts/h200-cost.sh's runs, and the per-record cost.

  h200-cost-summary.py DIR LOOP STEPS

DIR holds CFG-ROUND.txt (the loop's output: ms_per_step) and CFG-ROUND.json
(report --json of that run's trace).  Prints, per traced configuration and
round: API records, all application records, ops, waits matched, waits with
an interrupt, and whether the kernel names and counts equal those of the
allapi run of the same round (the loop is deterministic: the same kernels
each run).  Then the per-record cost of a CUDA API record, per round:

  (ms/step allapi - ms/step traced) / (API records/step allapi - traced)

API records per step are the trace's API records over the steps the loop ran
(STEPS timed + 20 warm-up; the setup's calls are counted in too, which makes
the per-step count a little high and the cost a little low).  The kernel
side's: (ms/step noinject - untraced) over its records a step.  The medians
over rounds are printed as the calibration `report --tracing-cost` takes
(cuda=..., kernel=...).
"""
import glob
import json
import os
import re
import statistics
import sys

WARMUP = 20


def ms_of(path):
    try:
        with open(path) as f:
            m = re.search(r"ms_per_step ([0-9.]+)", f.read())
    except OSError:
        return None
    return float(m.group(1)) if m else None


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def kernels(rep):
    return sorted((n.get("name", ""), n.get("count", 0)) for n in rep.get("app", {}).get("names", [])
                  if n.get("type") == "kernel")


def main():
    d, loop, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rounds = sorted({int(m.group(1)) for p in glob.glob(os.path.join(d, "*-*.json"))
                     if (m := re.search(r"-(\d+)\.json$", p))})
    costs, kcosts = [], []
    print("%-9s %5s %9s %9s %7s %6s %9s %s" % ("config", "round", "ms/step", "api recs",
                                              "app recs", "waits", "irq waits", "kernels as allapi"))
    for r in rounds:
        reps = {c: load(os.path.join(d, "%s-%d.json" % (c, r))) for c in ("traced", "noinject", "allapi")}
        ms = {c: ms_of(os.path.join(d, "%s-%d.txt" % (c, r)))
              for c in ("untraced", "traced", "noinject", "allapi")}
        for c, rep in reps.items():
            if not rep:
                print("%-9s %5d  (no report)" % (c, r))
                continue
            app, summ = rep.get("app", {}), rep.get("app", {}).get("summary", {})
            same = "-" if c == "allapi" or not reps["allapi"] else \
                ("yes" if kernels(rep) == kernels(reps["allapi"]) else "NO")
            print("%-9s %5d %9s %9d %9d %6d %9d %s" % (
                c, r, ms[c], app.get("api_events", 0), app.get("events", 0),
                summ.get("waits", 0), summ.get("irq_waits", 0), same))
        a, t = reps["allapi"], reps["traced"]
        if a and t and ms["allapi"] is not None and ms["traced"] is not None:
            extra = (a["app"]["api_events"] - t["app"]["api_events"]) / (steps + WARMUP)
            if extra > 0:
                costs.append((ms["allapi"] - ms["traced"]) * 1e6 / extra)
        k = reps["noinject"]
        if k and ms["noinject"] is not None and ms["untraced"] is not None:
            recs = k.get("tracing_cost", {}).get("kernel_records", 0) / (steps + WARMUP)
            if recs > 0:
                kcosts.append((ms["noinject"] - ms["untraced"]) * 1e6 / recs)
    if costs:
        print("per CUDA API record, ns, by round: %s" % " ".join("%.0f" % c for c in costs))
        print("calibration: cuda_record_ns=%.0f (median of %d rounds, %s loop)"
              % (statistics.median(costs), len(costs), loop))
    else:
        print("calibration: not measured (no pair of traced and allapi runs)")
    if kcosts:
        # the kernel side alone: --no-inject against untraced, over its records a step
        print("per kernel-side record, ns, by round: %s" % " ".join("%.0f" % c for c in kcosts))
        print("calibration: kernel_record_ns=%.0f (median of %d rounds; noise when the runs differ by less than their spread)"
              % (statistics.median(kcosts), len(kcosts)))


if __name__ == "__main__":
    main()
