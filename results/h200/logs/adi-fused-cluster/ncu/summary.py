#!/usr/bin/env python3
"""summary.md of this folder from ncu-sweep-x.csv and ncu-sweep-y.csv (ncu --page details --csv output).
usage: python3 summary.py > summary.md   (run in this folder)"""
import csv
import io
import json

KEYS = [("GPU Speed Of Light Throughput", "SM Frequency"), ("GPU Speed Of Light Throughput", "Duration"),
        ("GPU Speed Of Light Throughput", "Elapsed Cycles"), ("GPU Speed Of Light Throughput", "SM Active Cycles"),
        ("Instruction Statistics", "Executed Instructions"), ("Compute Workload Analysis", "Issue Slots Busy"),
        ("Scheduler Statistics", "Eligible Warps Per Scheduler"), ("Scheduler Statistics", "No Eligible"),
        ("Warp State Statistics", "Warp Cycles Per Issued Instruction"),
        ("GPU Speed Of Light Throughput", "DRAM Throughput"), ("GPU Speed Of Light Throughput", "L1/TEX Cache Throughput"),
        ("Memory Workload Analysis", "L1/TEX Hit Rate"), ("Memory Workload Analysis", "L2 Hit Rate"),
        ("Occupancy", "Achieved Active Warps Per SM"), ("Occupancy", "Max Active Clusters"),
        ("Launch Statistics", "Cluster Size"), ("Launch Statistics", "Registers Per Thread"),
        ("Launch Statistics", "Dynamic Shared Memory Per Block")]

values, names = {}, {}
for k in ("sweep-x", "sweep-y"):
    lines = open(f"ncu-{k}.csv").read().splitlines()
    first = next(n for n, line in enumerate(lines) if line.startswith('"ID"'))  # ncu's own lines come before
    for d in csv.DictReader(io.StringIO("\n".join(lines[first:]))):
        if not (d.get("ID") or "").isdigit():  # the application's own output after ncu's rows
            continue
        names[k] = d["Kernel Name"].split("(")[0].replace("void ", "")
        if d["Metric Name"]:
            values[(k, d["Section Name"], d["Metric Name"])] = (d["Metric Value"], d["Metric Unit"])
print("Nsight Compute on fused-cluster's sweeps at 2048^2 double (the 6th launch of each; durations at ncu's locked")
print("SM clock, not the run's). Written by summary.py from ncu-sweep-x.csv and ncu-sweep-y.csv.\n")
# Where the measurements came from: the folder's record (provenance.json, copied from the call's gpu.txt and date.txt).
record = json.load(open("provenance.json"))
print("Measured on " + record["gpu"] + " (" + record["gpu_uuid"] + "), driver " + record["driver"] + ", CUDA " +
      record["cuda"] + ", max SM clock " + str(record["sm_clock_mhz"]) + " MHz; " + record["date"] + "; commit " +
      record["commit"] + "; command `" + record["command"] + "`.\n")
print(f"| metric | unit | sweep-x ({names['sweep-x']}) | sweep-y ({names['sweep-y']}) |")
print("|---|---|---|---|")
for section, metric in KEYS:
    x = values.get(("sweep-x", section, metric), ("-", ""))
    y = values.get(("sweep-y", section, metric), ("-", ""))
    print(f"| {metric} | {x[1] or y[1]} | {x[0]} | {y[0]} |")
