#!/usr/bin/env python3
"""Plot of the ADI step times (adi.csv, written by scripts/adi_report.py from bench_adi's JSON):
  adi_steps.png   three panels: the median step of every variant against the grid's cells, double and
                  single (log axes; square grids as lines, the fused variant's non-square grids as hollow
                  markers, the step target at 2048^2 double as a star), and the state-only traffic (the
                  8 arrays a step must move at least, over the step) as a percentage of the copy bandwidth
                  for the fastest fused variant and the fastest earlier one, with the 28 % target's line.
usage: plot_adi.py results/h200/adi.csv   (the PNG beside it)
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_output import save_png  # noqa: E402
# The step's targets and the variants before it, as the tables state them.
from adi_report import STAGED as EARLIER, STATE_TARGET_FRACTION, STEP_TARGET_US  # noqa: E402

STATE_ARRAYS = 8  # reads zeta, bed, p, q^{n-1/2}, q^{n+1/2}; writes zeta, p, q (adi_report.py)
ELEMENT_BYTES = {"double": 8, "single": 4}
STYLE = {"thread-per-line": ("tab:gray", "o"), "block-per-line/pcr": ("tab:olive", "v"),
         "block-per-line/cr-pcr": ("tab:green", "^"), "partitioned": ("tab:purple", "s"),
         "partitioned/c16": ("tab:pink", "D"), "fused": ("tab:blue", "o"), "fused/c4": ("tab:cyan", "P"),
         "fused/c16": ("tab:brown", "X"), "fused-cluster": ("tab:red", "*")}


def fail(msg):
    print(f"plot_adi.py: {msg}", file=sys.stderr)
    sys.exit(2)


def steps(path):
    try:
        df = pd.read_csv(path)
    except (OSError, ValueError) as e:  # pandas' parser and empty-file errors are ValueErrors
        fail(f"{path}: cannot read as CSV ({e})")
    missing = {"variant", "precision", "nx", "ny", "kernel", "median_us", "effective_gbs",
               "fraction_of_copy"} - set(df.columns)
    if missing:
        fail(f"{path}: no column(s) {', '.join(sorted(missing))}; is it adi.csv from scripts/adi_report.py?")
    df = df[df["kernel"] == "step"].copy()
    if df.empty:
        fail(f"{path}: no step rows")
    numeric = ["nx", "ny", "median_us", "effective_gbs", "fraction_of_copy"]
    df[numeric] = df[numeric].apply(pd.to_numeric, errors="coerce")
    if df[numeric].isna().any().any() or (df[numeric] <= 0).any().any():
        fail(f"{path}: a step row whose nx, ny, median_us, effective_gbs or fraction_of_copy is not a positive number")
    df["cells"] = df["nx"] * df["ny"]
    df["square"] = df["nx"] == df["ny"]
    # The copy bandwidth each row was divided by (adi_report.py: fraction = effective GB/s / copy GB/s).
    copy_gbs = (df["effective_gbs"] / df["fraction_of_copy"]).median()
    state_bytes = STATE_ARRAYS * df["cells"] * df["precision"].map(ELEMENT_BYTES)
    df["state_fraction"] = state_bytes / (df["median_us"] * 1e-6) / 1e9 / copy_gbs
    return df


def time_panel(ax, df, precision):
    rows = df[df["precision"] == precision]
    for variant in [v for v in STYLE if v in set(rows["variant"])] + sorted(set(rows["variant"]) - set(STYLE)):
        colour, marker = STYLE.get(variant, ("k", "."))
        sq = rows[(rows["variant"] == variant) & rows["square"]].sort_values("cells")
        ax.plot(sq["cells"], sq["median_us"], marker=marker, color=colour, label=variant, lw=1.2, ms=5)
        rect = rows[(rows["variant"] == variant) & ~rows["square"]]
        if not rect.empty:
            ax.plot(rect["cells"], rect["median_us"], ls="none", marker=marker, mfc="none", color=colour, ms=8,
                    label=f"{variant}, non-square")
    if precision == "double":
        ax.plot([2048 * 2048], [STEP_TARGET_US], marker="*", color="tab:red", ms=14, ls="none",
                label=f"step target (2048^2: {STEP_TARGET_US:.0f} us)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("cells (nx x ny)")
    ax.set_ylabel("median step (us)")
    ax.set_title(f"ADI step, {precision}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


def fraction_panel(ax, df):
    for precision, ls in (("double", "-"), ("single", "--")):
        rows = df[(df["precision"] == precision) & df["square"]]
        for group, colour in (("fused", "tab:blue"), ("earlier", "tab:purple")):
            if group == "fused":
                sel = rows[rows["variant"].str.startswith("fused")]
            else:
                sel = rows[rows["variant"].str.split("/").str[0].isin(EARLIER)]
            if sel.empty:
                continue
            best = sel.loc[sel.groupby("cells")["median_us"].idxmin()].sort_values("cells")
            name = "fastest fused" if group == "fused" else "fastest earlier variant"
            ax.plot(best["cells"], 100 * best["state_fraction"], ls=ls, marker="o", color=colour, ms=4,
                    label=f"{name}, {precision}")
    ax.axhline(100 * STATE_TARGET_FRACTION, color="tab:red", lw=1, ls=":",
               label=f"target ({100 * STATE_TARGET_FRACTION:.0f} % at 2048^2 double)")
    ax.set_xscale("log")
    ax.set_xlabel("cells (nx x ny)")
    ax.set_ylabel("state-only traffic, % of copy bandwidth")
    ax.set_title("8 arrays a step over the step time")
    ax.set_ylim(bottom=0)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


def main():
    if len(sys.argv) != 2:
        fail("usage: plot_adi.py results/<gpu>/adi.csv")
    path = sys.argv[1]
    df = steps(path)
    fig, axes = plt.subplots(1, 3, figsize=(16, 5))
    time_panel(axes[0], df, "double")
    time_panel(axes[1], df, "single")
    fraction_panel(axes[2], df)
    gpu = df["gpu"].iloc[0] if "gpu" in df.columns else os.path.basename(os.path.dirname(os.path.abspath(path)))
    fig.suptitle(f"ADI shallow-water step on {gpu} (bench_adi medians, adi.csv)")
    fig.tight_layout()
    out = os.path.join(os.path.dirname(os.path.abspath(path)), "adi_steps.png")
    save_png(fig, out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
