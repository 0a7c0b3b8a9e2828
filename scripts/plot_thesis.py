#!/usr/bin/env python3
"""Thesis figure 4.15/4.16 layout from `warpmodel reproduce-thesis --format json`: predicted cycles
against warps per SM, one line per stencil order, for tables 4.5 and 4.7, with the cells warpmodel
recomputes marked, and the order-2 inputs with only N changed (not a reproduction) dashed.

usage: plot_thesis.py results/k40-thesis/reproduction.json  (writes reproduction.png beside it)
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from png_output import save_png  # noqa: E402


def main(path):
    data = json.load(open(path))
    cells = data["tables_4_5_4_7"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, table in zip(axes, ("4.5", "4.7")):
        for order, colour in ((2, "tab:blue"), (4, "tab:orange"), (8, "tab:green")):
            rows = sorted((c for c in cells if c["table"] == table and c["order"] == order),
                          key=lambda c: c["warps_per_sm"])
            warps = [c["warps_per_sm"] for c in rows]
            ax.plot(warps, [c["thesis"] for c in rows], "-o", color=colour, label=f"order {order}: thesis")
            fixed = [(c["warps_per_sm"], c["with_8_warp_inputs"]) for c in rows if c["with_8_warp_inputs"] is not None]
            if fixed:
                ax.plot(*zip(*fixed), "--", color=colour, alpha=0.6, label=f"order {order}: 8-warp inputs, N changed")
            rec = [(c["warps_per_sm"], c["recomputed"]) for c in rows if c["recomputed"] is not None]
            if rec:
                ax.plot(*zip(*rec), "x", color="black", markersize=10, mew=2,
                        label="recomputed by warpmodel" if order == 2 else None)
        ax.set_title(f"Thesis table {table}" + (" (#total_warps = warps doing work)" if table == "4.7" else ""))
        ax.set_xlabel("warps per SM")
        ax.set_xticks([8, 16, 24, 32])
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("predicted cycles (K40)")
    axes[1].legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    out = os.path.join(os.path.dirname(path), "reproduction.png")
    save_png(fig, out, dpi=120)
    print(f"plot_thesis: wrote {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
