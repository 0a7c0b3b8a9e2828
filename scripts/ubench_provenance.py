#!/usr/bin/env python3
"""Writes PROVENANCE.md into a characterize output folder from its device.json, so that files that
cannot carry it themselves (ubench.csv, the PNGs) sit beside a record of where they came from.
usage: scripts/ubench_provenance.py results/h200"""
import json
import os
import sys

folder = sys.argv[1]
prov = json.load(open(os.path.join(folder, "device.json")))["provenance"]
keys = ["gpu", "driver", "cuda_runtime", "cuda_driver_api", "sm_clock_mhz_before", "sm_clock_mhz_after",
        "mem_clock_mhz_before", "date", "commit", "command"]
files = sorted(f for f in os.listdir(folder) if not f.startswith(".") and f != "PROVENANCE.md")
lines = [f"# Provenance of {folder}/", "",
         "device.json, ubench.csv, ubench.md and characterize.log were written by one `warpmodel characterize`",
         "run on the GPU below (run2/ by the run right after it); the PNGs (scripts/plot_ubench.py) and",
         "repeatability.md (scripts/compare_ubench_runs.py) are derived from them. This record is copied",
         "from device.json's `provenance`.", ""]
lines += [f"- {k}: {prov[k]}" for k in keys if k in prov]
lines += ["", "Files: " + ", ".join(files)]
tmp = os.path.join(folder, ".PROVENANCE.md.tmp")
open(tmp, "w").write("\n".join(lines) + "\n")
os.replace(tmp, os.path.join(folder, "PROVENANCE.md"))
print(f"ubench_provenance: wrote {folder}/PROVENANCE.md")
