#!/usr/bin/env python3
"""Plots of `warpmodel characterize` output (results/<gpu>/ubench.csv.xz), written as PNG next to it:
  ubench_latency_vs_warps.png   per-op latency vs warps per block (style of thesis figs 4.3-4.14)
  ubench_memory_vs_warps.png    shared / L1 / L2 / DRAM latency and departure completion vs warps
  ubench_footprint.png          pointer-chase latency vs footprint (log axis), ca and cg
Usage: scripts/plot_ubench.py [results/h200/ubench.csv.xz]
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from png_output import save_png  # noqa: E402


def summarize(df, keys):
    g = df.groupby(keys)["value"]
    out = g.agg(["mean", "std", "count"]).reset_index()
    out["u"] = out["std"] / out["count"] ** 0.5
    return out


def plot_series(ax, summary, names):
    """One error-bar line (mean +- s/sqrt(n) over warps) per benchmark present in the summary."""
    for n in names:
        s = summary[summary.benchmark == n]
        if len(s):
            ax.errorbar(s.warps, s["mean"], yerr=s.u, marker="o", ms=3, label=n)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "results/h200/ubench.csv.xz"
    df = pd.read_csv(path, low_memory=False)
    folder = os.path.dirname(os.path.abspath(path))
    lat = summarize(df[df.series == "latency"], ["benchmark", "warps"])

    groups = [("clock reads", ["clock64", "clock_register", "clock_function"]),
              ("FP32", ["fp32_add", "fp32_sub", "fp32_mul", "fp32_fma"]),
              ("division", ["fp32_div_approx", "fp32_div_full", "fp32_div_rn"]),
              ("FP64", ["fp64_add", "fp64_fma"]),
              ("SFU", ["sfu_rcp", "sfu_sqrt", "sfu_ex2", "sfu_sin"]),
              ("shared memory", ["shared_load"])]
    fig, axes = plt.subplots(2, 3, figsize=(15, 8))
    for ax, (title, names) in zip(axes.flat, groups):
        for n in names:
            s = lat[lat.benchmark == n]
            if len(s):
                ax.errorbar(s.warps, s["mean"], yerr=s.u, marker="o", ms=3, label=n)
        ax.set_title(title)
        ax.set_xlabel("warps per block")
        ax.set_ylabel("cycles per operation")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Latency vs warps per block (clock64 read cost subtracted; mean ± s/√n)")
    fig.tight_layout()
    save_png(fig, os.path.join(folder, "ubench_latency_vs_warps.png"), dpi=110)

    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    plot_series(axes[0], lat, ["shared_load", "l1_hit", "l2_hit", "global_load", "global_load_uncoalesced"])
    axes[0].set_title("memory latency vs warps per block (pointer chase)")
    axes[0].set_xlabel("warps per block")
    axes[0].set_ylabel("cycles per load")
    axes[0].set_yscale("log")
    axes[0].grid(alpha=0.3, which="both")
    axes[0].legend(fontsize=8)
    comp = summarize(df[df.series == "completion"], ["benchmark", "warps"])
    plot_series(axes[1], comp, ["departure_coalesced", "departure_uncoalesced"])
    axes[1].set_title("departure delay (direct): completion of one load per warp")
    axes[1].set_xlabel("warps issuing one load each")
    axes[1].set_ylabel("cycles, first issue to last completion")
    axes[1].grid(alpha=0.3)
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    save_png(fig, os.path.join(folder, "ubench_memory_vs_warps.png"), dpi=110)

    fp = summarize(df[df.series == "footprint"], ["benchmark", "footprint_bytes"])
    fig, ax = plt.subplots(figsize=(9, 5))
    for n, label in [("chase_ca", "ld.global.ca (L1 + L2)"), ("chase_cg", "ld.global.cg (L2 only)")]:
        s = fp[fp.benchmark == n]
        if len(s):
            ax.errorbar(s.footprint_bytes, s["mean"], yerr=s.u, marker="o", ms=3, label=label)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("footprint (bytes)")
    ax.set_ylabel("cycles per load")
    ax.set_title("Pointer-chase latency vs footprint (random cycle, stride >= 256 B, 1 warp)")
    ax.grid(alpha=0.3, which="both")
    ax.legend()
    fig.tight_layout()
    save_png(fig, os.path.join(folder, "ubench_footprint.png"), dpi=110)
    print("plot_ubench: wrote", ", ".join(f for f in sorted(os.listdir(folder)) if f.endswith(".png")))


if __name__ == "__main__":
    main()
