#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""benchstat: the statistics every gpuprobe benchmark script uses.

Samples are lines "NAME VALUE" in FILE, one per configuration per round,
the configurations interleaved round by round (so round i of A and round i
of B ran side by side).  Intervals are bootstrap 95% intervals over rounds
(2000 resamples, fixed seed: the same samples give the same interval).

  benchstat.py FILE stat NAME
      median lo hi n                      (interval of the median)
  benchstat.py FILE ratio A B
      ratio lo hi n                       (median of the per-round ratios A/B)
  benchstat.py FILE diff A B
      diff lo hi n                        (median of the per-round differences A-B)
  benchstat.py FILE goal NAME OP GOAL     OP is >= or <=
  benchstat.py FILE goal A/B OP GOAL      (a ratio)
      median lo hi met|missed|undecided   undecided: the interval straddles GOAL

A goal is claimed only when the whole interval is on one side of it.
"""
import random
import statistics
import sys

RESAMPLES = 2000


def load(path):
    samples = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2:
                try:
                    samples.setdefault(parts[0], []).append(float(parts[1]))
                except ValueError:
                    pass
    return samples


def interval(values):
    """Median and the bootstrap 95% interval of the median."""
    rng = random.Random(1)
    n = len(values)
    meds = sorted(statistics.median(rng.choices(values, k=n)) for _ in range(RESAMPLES))
    return statistics.median(values), meds[int(0.025 * RESAMPLES)], meds[int(0.975 * RESAMPLES) - 1]


def series(samples, name):
    if name.startswith("diff:"):
        a, b = name[5:].split("/", 1)
        va, vb = samples.get(a, []), samples.get(b, [])
        return [va[i] - vb[i] for i in range(min(len(va), len(vb)))]
    if "/" in name:
        a, b = name.split("/", 1)
        va, vb = samples.get(a, []), samples.get(b, [])
        n = min(len(va), len(vb))
        return [va[i] / vb[i] for i in range(n) if vb[i]]
    return samples.get(name, [])


def fmt(x):
    return "%.4g" % x


def main(argv):
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    samples = load(argv[1])
    what = argv[2]
    if what == "stat" or what == "ratio":
        name = argv[3] if what == "stat" else argv[3] + "/" + argv[4]
    elif what == "diff" and len(argv) == 5:
        name = "diff:" + argv[3] + "/" + argv[4]
    elif what == "goal" and len(argv) == 6 and argv[4] in (">=", "<="):
        name = argv[3]
    else:
        sys.stderr.write(__doc__)
        return 2
    values = series(samples, name)
    if not values:
        print("nan nan nan 0" if what != "goal" else "nan nan nan undecided")
        return 1
    med, lo, hi = interval(values)
    if what != "goal":
        print(fmt(med), fmt(lo), fmt(hi), len(values))
        return 0
    goal = float(argv[5])
    if argv[4] == ">=":
        verdict = "met" if lo >= goal else "missed" if hi < goal else "undecided"
    else:
        verdict = "met" if hi <= goal else "missed" if lo > goal else "undecided"
    print(fmt(med), fmt(lo), fmt(hi), verdict)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
