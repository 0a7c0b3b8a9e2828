#!/usr/bin/env python3
"""Where and when fused-cluster's y-sweep blocks ran (placement-<precision>-2048-w<columns>.csv.gz, written by
the probe build of placement.patch: per block its cluster rank, %smid, %globaltimer at start and end, clock64
at start and after each phase), and where Nsight Compute's stall samples of the 2048^2 double y-sweep fall
(ncu-source-sweep-y.csv.gz, `--page source --print-source sass`). Writes summary.md beside this script.

Launch 0 of each file (the first y-sweep of the run, cold) is left out; the medians are over launches 1-4.
usage: summary.py [DIR]  (default: this script's folder)
"""
import io
import os
import sys

import numpy as np
import pandas as pd

SLOTS = 264  # 132 SMs x 2 blocks (registers and shared memory both allow 2 at 2048 rows in double)
PHASES = [("build", "c_start", "c_built"), ("chains and exchange", "c_built", "c_exchanged"),
          ("back substitution", "c_exchanged", "c_solved"), ("store", "c_solved", "c_stored"),
          ("last cluster wait", "c_stored", "c_end")]


def launch_summary(g, columns):
    g = g.assign(cluster=g.block // columns)
    t0, t1 = g.gt_start.min(), g.gt_end.max()
    clusters = g.groupby("cluster").agg(start=("gt_start", "min"), end=("gt_end", "max"))
    times = np.linspace(t0, t1, 400, endpoint=False)
    running = [int(((clusters.start <= t) & (clusters.end > t)).sum()) for t in times]
    busy_block_ns = (g.gt_end - g.gt_start).sum()
    return {"span_us": (t1 - t0) / 1e3, "sms_used": g.smid.nunique(),
            "sms_per_cluster": g.groupby("cluster").smid.nunique().mean(),
            "clusters_at_once_max": max(running), "clusters_at_once_mean": float(np.mean(running)),
            "block_us": ((g.gt_end - g.gt_start) / 1e3).median(),
            "slot_use": busy_block_ns / ((t1 - t0) * SLOTS)}


def placement_rows(folder):
    rows = []
    for name in sorted(os.listdir(folder)):
        if not (name.startswith("placement-") and name.endswith(".csv.gz")):
            continue
        d = pd.read_csv(os.path.join(folder, name))
        d = d[d.launch >= 1]
        columns = int(d["columns"].iloc[0])
        per_launch = pd.DataFrame([launch_summary(g, columns) for _, g in d.groupby("launch")])
        row = {"file": name, "precision": "double" if d.element.iloc[0] == 8 else "single", "columns": columns}
        row.update(per_launch.median().to_dict())
        total = (d.c_end - d.c_start).median()
        for label, a, b in PHASES:
            row[f"{label} (cycles)"] = (d[b] - d[a]).median()
            row[f"{label} (share)"] = (d[b] - d[a]).median() / total
        row["block (cycles)"] = total
        rows.append(row)
    return pd.DataFrame(rows)


def ncu_regions(folder):
    path = os.path.join(folder, "ncu-source-sweep-y.csv.gz")
    if not os.path.exists(path):
        return None
    import gzip
    lines = gzip.open(path, "rt").read().splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith('"Address"'))
    d = pd.read_csv(io.StringIO("\n".join(lines[start:])))
    stalls = [c for c in d.columns if c.startswith("stall_") and "Not Issued" not in c]
    for c in stalls + ["Warp Stall Sampling (All Samples)", "Instructions Executed"]:
        d[c] = pd.to_numeric(d[c], errors="coerce").fillna(0)
    # Regions by the kernel's barriers in address order: the build ends at the first BAR.SYNC; the chains, the
    # exchange and the back substitution end at the BAR.SYNC before the store (the last but one); the rest is
    # the store and the cluster's last wait.
    bars = d.index[d.Source.str.contains("BAR.SYNC")].tolist()
    bounds = [("build", 0, bars[0] + 1), ("chains, exchange, back substitution", bars[0] + 1, bars[-2] + 1),
              ("store and last wait", bars[-2] + 1, len(d))]
    total = d["Warp Stall Sampling (All Samples)"].sum()
    out = []
    for label, a, b in bounds:
        g = d.iloc[a:b]
        samples = g["Warp Stall Sampling (All Samples)"].sum()
        top = g[stalls].sum().sort_values(ascending=False).head(4)
        out.append({"region": label, "share of stall samples": samples / total,
                    "instructions executed": int(g["Instructions Executed"].sum()),
                    "share of instructions": g["Instructions Executed"].sum() / d["Instructions Executed"].sum(),
                    "top stall reasons (share of the region's samples)":
                        ", ".join(f"{k[6:]} {v / samples:.2f}" for k, v in top.items())})
    loads = d[d.Source.str.contains("LDG") & (d["Instructions Executed"] > 0)]
    # The build's trips: a warp runs one of the pair's two copies a trip, mostly the interior one (the count
    # most rows share among the region's busy rows), and the loop's own instructions every trip (the count most
    # rows share above that; the wall copy takes the difference).
    build = d.iloc[:bars[0] + 1]
    counts = build["Instructions Executed"]
    busy = counts[counts > counts.max() / 2]
    interior = busy.value_counts().idxmax()
    trips = busy[busy > interior].value_counts().idxmax()
    opcode = build.Source.str.strip().str.replace(r"^@!?U?P\w+\s+", "", regex=True).str.split().str[0]
    pair = opcode[counts == interior]
    mix = {"trips": int(trips), "interior trips": int(interior), "interior pair instructions": len(pair),
           "FP64": int(pair.str.match(r"^D(FMA|ADD|MUL)").sum()), "MUFU": int(pair.str.startswith("MUFU").sum()),
           "global loads": int(pair.str.startswith("LDG").sum()),
           "loop instructions a trip": int((counts == trips).sum()),
           "build instructions a warp trip": counts.sum() / trips}
    return pd.DataFrame(out), len(loads), mix


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rows = placement_rows(folder)
    if rows.empty:
        print(f"summary.py: no placement-*.csv.gz in {folder}", file=sys.stderr)
        return 2
    lines = ["# fused-cluster's y-sweep: where and when its blocks ran (2048^2, H200)", "",
             "Written by summary.py from this folder's placement-*.csv.gz and ncu-source-sweep-y.csv.gz (probe "
             "build of placement.patch; provenance.json). Medians over the run's y-sweeps 1-4. `slot use`: block-time "
             f"over the span times {SLOTS} slots (2 blocks an SM; single fits more, so it can exceed 1).", ""]
    head = ["precision", "columns", "span_us", "sms_used", "sms_per_cluster", "clusters_at_once_max",
            "clusters_at_once_mean", "block_us", "slot_use"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for _, r in rows.iterrows():
        lines.append("| " + " | ".join(f"{r[h]:.3g}" if isinstance(r[h], float) else str(r[h]) for h in head) + " |")
    lines += ["", "Phases of a block (clock64 cycles, median; share of the block's cycles):", ""]
    head2 = ["precision", "columns"] + [label for label, _, _ in PHASES] + ["block (cycles)"]
    lines.append("| " + " | ".join(head2) + " |")
    lines.append("|" + "---|" * len(head2))
    for _, r in rows.iterrows():
        cells = [r.precision, str(r.columns)]
        cells += [f"{r[label + ' (cycles)']:.0f} ({r[label + ' (share)']:.0%})" for label, _, _ in PHASES]
        cells.append(f"{r['block (cycles)']:.0f}")
        lines.append("| " + " | ".join(cells) + " |")
    ncu = ncu_regions(folder)
    if ncu is not None:
        regions, loads, mix = ncu
        lines += ["", "Nsight Compute, cluster_sweep_kernel<double, 8, 16> at 2048^2 (the 6th launch; "
                  f"{loads} global-load instructions in its SASS):", ""]
        lines.append("| " + " | ".join(regions.columns) + " |")
        lines.append("|" + "---|" * len(regions.columns))
        for _, r in regions.iterrows():
            lines.append("| " + " | ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in r.values) + " |")
        lines += ["", f"The build, per warp trip (one pair of cells a thread; {mix['trips']} warp trips, "
                  f"{mix['interior trips']} of them the interior copy, the others the copy with the walls' tests): {mix['build instructions a warp trip']:.0f} "
                  f"instructions issued on average; the interior pair's copy {mix['interior pair instructions']} "
                  f"instructions ({mix['FP64']} FP64, {mix['MUFU']} MUFU, {mix['global loads']} global loads), "
                  f"and {mix['loop instructions a trip']} more every trip outside the pair's two copies (the trip's "
                  "cell, the addresses of the five fields, the slots and stores into shared memory)."]
    with open(os.path.join(folder, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
