#!/usr/bin/env python3
"""Medians of the benchmarks each binary completed in run1 (the c16 binaries aborted at the first size c16
cannot launch, 4096 cells: 256 threads over its 128-thread launch bound, so their JSON files end early).
Usage: python3 completed.py run1"""
import collections
import glob
import json
import re
import statistics
import sys

times = collections.defaultdict(dict)
for path in sorted(glob.glob(f"{sys.argv[1]}/bench-*-[12].json")):
    variant = path.rsplit("/", 1)[1].split("-")[1]
    text = open(path).read()
    for m in re.finditer(r'"name": "([^"]+)",.*?"real_time": ([0-9.e+-]+)', text, re.S):
        times[(variant, m.group(1).split("/iterations")[0])].setdefault(path, float(m.group(2)))
prov = json.load(open(f"{sys.argv[1]}/provenance.json"))
print(f"Medians of real_time (runs in parentheses) of the benchmarks each binary completed in `{sys.argv[1]}` "
      f"(completed.py). Measured on {prov['gpu']} {prov['gpu_uuid']}, driver {prov['driver']}, CUDA driver "
      f"{prov['cuda_driver_version']} / runtime {prov['cuda_runtime_version']}, max SM clock "
      f"{prov['max_sm_clock_mhz']} MHz, finished {prov['date']}; commit {prov['git_commit']}; command "
      f"`{prov['command']}` (provenance.json).")
print()
names = sorted({name for _, name in times})
variants = ["base", "c16", "c16u"]
print("| benchmark | " + " | ".join(f"{v} (us)" for v in variants) + " |")
print("|---|" + "---|" * len(variants))
for name in names:
    cells = []
    for v in variants:
        runs = list(times.get((v, name), {}).values())
        cells.append(f"{statistics.median(runs):.1f} ({len(runs)})" if runs else "-")
    print(f"| {name} | " + " | ".join(cells) + " |")
