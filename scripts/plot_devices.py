#!/usr/bin/env python3
"""Device profiles side by side, from `warpmodel compare-devices --format json` (three panels):
  latency by level     L1 hit, shared load, L2 hit, DRAM, FP (the profile's latency_cycles), cycles
  bandwidth            DRAM read/write/copy, L2 read/write, shared read, GB/s
  issue rates          FP32 / FP64 FMA and SFU (rcp) ops per clock per SM, LSU load requests per clock
                       per SM (coalesced, and local) where the profile has them
Grouped bars, one colour per device; a quantity a profile lacks has no bar (marked "n/a"); a panel
whose values span more than a factor of 20 has a log y axis.
usage: plot_devices.py COMPARE.json OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402
from png_output import save_png  # noqa: E402

# (label, the quantities that may hold it, first found wins): the short profile fields first, then
# the full tables under measurements (profiles of other characterize versions have one or the other).
LATENCY = [
    ("L1 hit", ["latency_cycles.l1_hit"]),
    ("shared", ["latency_cycles.shared_load"]),
    ("L2 hit", ["latency_cycles.l2_hit"]),
    ("DRAM", ["latency_cycles.dram"]),
    ("FP (avg_inst_lat)", ["latency_cycles.fp"]),
]
BANDWIDTH = [(f"{label}", [f"measurements.bandwidth.{key}.gbs", f"bandwidth_gbs.{key}"])
             for label, key in (("DRAM read", "dram_read"), ("DRAM write", "dram_write"),
                                ("DRAM copy", "dram_copy"), ("L2 read", "l2_read"), ("L2 write", "l2_write"),
                                ("shared read", "shared_read"))]
ISSUE = [
    ("FP32 FMA\nops/clk/SM", ["measurements.throughput.fp32_fma.ops_per_clk_per_sm"]),
    ("FP64 FMA\nops/clk/SM", ["measurements.throughput.fp64_fma.ops_per_clk_per_sm"]),
    ("SFU rcp\nops/clk/SM", ["measurements.throughput.sfu_rcp.ops_per_clk_per_sm"]),
    ("LSU loads\nreq/clk/SM", ["measurements.throughput.global_load_coalesced.requests_per_clk_per_sm"]),
    ("local loads\nreq/clk/SM", ["measurements.throughput.local_load.requests_per_clk_per_sm"]),
]
COLOURS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:grey"]


def lookup(comparison, wanted):
    """[(label, [value or None per device])] for the labels some device has."""
    by_quantity = {q["quantity"]: q["values"] for q in comparison["quantities"]}
    devices = len(comparison["devices"])
    out = []
    for label, candidates in wanted:
        values = [None] * devices
        for quantity in candidates:
            for d, v in enumerate(by_quantity.get(quantity, [None] * devices)):
                if values[d] is None and v is not None:
                    values[d] = v
        if any(v is not None for v in values):
            out.append((label, values))
    return out


def bar_text(value):
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def grouped_bars(ax, comparison, rows, title, ylabel):
    names = [d["name"] for d in comparison["devices"]]
    ax.set_title(title)
    if not rows:
        ax.text(0.5, 0.5, "no profile has these quantities", ha="center", va="center", transform=ax.transAxes)
        ax.set_xticks([])
        ax.set_yticks([])
        return
    width = 0.8 / len(names)
    present = [v for _, values in rows for v in values if v is not None and v > 0]
    log = bool(present) and max(present) / min(present) > 20
    for d, name in enumerate(names):
        labelled = False  # each device once in the legend, on its first bar
        for i, (_, values) in enumerate(rows):
            x = i - 0.4 + width * (d + 0.5)
            if values[d] is None:
                ax.text(x, 0.01, "n/a", rotation=90, ha="center", va="bottom", fontsize=6, color="0.4",
                        transform=ax.get_xaxis_transform())
                continue
            bars = ax.bar(x, values[d], width, color=COLOURS[d % len(COLOURS)], label=None if labelled else name)
            ax.bar_label(bars, labels=[bar_text(values[d])], fontsize=6, rotation=90, padding=2)
            labelled = True
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([label for label, _ in rows], fontsize=8)
    if log:  # plain numbers on the major ticks, room below the smallest bar and above the labels
        ax.set_yscale("log")
        ax.set_ylim(min(present) / 2, max(present) * 3)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
    else:
        ax.set_ylim(0, max(present) * 1.15 if present else 1)
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", which="both", alpha=0.3)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        comparison = json.load(f)
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    grouped_bars(axes[0], comparison, lookup(comparison, LATENCY), "latency by level", "cycles")
    grouped_bars(axes[1], comparison, lookup(comparison, BANDWIDTH), "bandwidth", "GB/s")
    grouped_bars(axes[2], comparison, lookup(comparison, ISSUE), "issue and LSU rates (32 warps per SM)",
                 "per clock per SM")
    handles, labels = [], []
    for ax in axes:  # one legend for the figure: every device once
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(h)
                labels.append(label)
    fig.legend(handles, labels, loc="upper center", ncol=len(labels), fontsize=9, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    save_png(fig, sys.argv[2], dpi=110)
    plt.close(fig)
    print(f"plot_devices: wrote {sys.argv[2]}")


if __name__ == "__main__":
    main()
