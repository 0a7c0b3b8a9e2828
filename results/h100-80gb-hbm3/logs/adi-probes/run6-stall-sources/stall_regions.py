#!/usr/bin/env python3
"""Stall samples and instructions of fused_sweep_kernel<double, 8> by phase, from ncu's source page
(src.csv.gz: --section SourceCounters --section WarpStateStats --page source --csv --print-source sass).
Phases by the kernel's barriers: A (build) before the first BAR.SYNC, B (solve) up to the last, C (store)
after it; B split at each barrier (chains, reduced rows, PCR levels, back substitution).
usage: stall_regions.py src.csv.gz"""
import collections
import csv
import gzip
import sys

rows = [r for r in csv.reader(gzip.open(sys.argv[1], "rt")) if r and (r[0] == "Address" or r[0].startswith("0x"))]
head, data = rows[0], rows[1:]
col = {k: i for i, k in enumerate(head)}
stalls = [k for k in head if k.startswith("stall_") and "Not Issued" not in k]
bars = [i for i, r in enumerate(data) if "BAR.SYNC" in r[1]]
phases = {"A build": (0, bars[0]), "B solve": (bars[0], bars[-1] + 1), "C store": (bars[-1] + 1, len(data))}
samples = lambda rs: sum(int(r[col["# Samples"]]) for r in rs)
executed = lambda rs: sum(int(r[col["Instructions Executed"]]) for r in rs)
total = samples(data)
print(f"stall samples {total}, warp instructions executed {executed(data)}; percentages of all samples")


def opcode(text):
    t = text.split()
    return (t[1] if t[0].startswith("@") else t[0]).split(".")[0]


for name, (a, b) in phases.items():
    part = data[a:b]
    per = collections.Counter()
    for r in part:
        for s in stalls:
            per[s[6:]] += int(r[col[s]])
    mix = collections.Counter()
    for r in part:
        mix[opcode(r[1])] += int(r[col["Instructions Executed"]])
    n = executed(part)
    print(f"{name}: {100 * samples(part) / total:.1f} % of samples, {n} instructions ({100 * n / executed(data):.1f} %); "
          + " ".join(f"{k}={100 * v / total:.1f}%" for k, v in per.most_common(6)))
    print("    instruction mix: " + " ".join(f"{k} {100 * v / n:.1f}%" for k, v in mix.most_common(8)))
for k in range(len(bars) - 1):
    part = data[bars[k]:bars[k + 1]]
    print(f"  B between barriers {k} and {k + 1}: {100 * samples(part) / total:.1f} % of samples, {executed(part)} instructions")
