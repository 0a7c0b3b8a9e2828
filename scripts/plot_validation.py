#!/usr/bin/env python3
"""Plots of `warpmodel validate` (validation.csv, one row per measured case x model):
  validation_scatter.png   predicted against measured cycles, log axes, the y = x line, one panel per model
                           (held-out cases filled, training cases hollow)
  validation_errors.png    signed error per model on the held-out half (box: quartiles, whiskers: 5-95%)
  validation_warps.png     thesis figure 4.15 layout: cycles against warps per SM for the stencil kernels,
                           one panel per kernel and size, measured beside every model
  validation_classes.png   from validation-held-out.csv beside it (hopper, constants that never saw the row):
                           predicted against measured per class (leave-one-class-out) and the signed error per
                           class for leave-one-class-out and each cross-GPU direction
  external/accuracy.png    from external/launches.csv beside it (the external set, validate --from): per half,
                           predicted against measured time per distinct launch (log axes, the +-25 % band,
                           colour: bound), and the signed error against the measured time (the launches under
                           20 us apart)
usage: plot_validation.py results/h200/validation.csv   (PNGs beside it)
"""
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402
from png_output import save_png  # noqa: E402
import pandas as pd  # noqa: E402

COLOURS = {"hong-kim-2009": "tab:red", "gpuperf-2012": "tab:orange", "thesis-2016": "tab:purple",
           "hopper": "tab:blue"}


def models_of(df):
    return [m for m in COLOURS if m in set(df["model"])] + sorted(set(df["model"]) - set(COLOURS))


def scatter(df, out):
    models = models_of(df)
    fig, axes = plt.subplots(1, len(models), figsize=(4.2 * len(models), 4.2), squeeze=False)
    ok = df.dropna(subset=["predicted_cycles"])
    lo = min(ok["measured_cycles"].min(), ok["predicted_cycles"].min()) * 0.7
    hi = max(ok["measured_cycles"].max(), ok["predicted_cycles"].max()) * 1.4
    for ax, model in zip(axes[0], models):
        rows = ok[ok["model"] == model]
        for split, face in (("training", "none"), ("held-out", COLOURS.get(model, "k"))):
            part = rows[rows["split"] == split]
            ax.scatter(part["measured_cycles"], part["predicted_cycles"], s=14, facecolors=face,
                       edgecolors=COLOURS.get(model, "k"), linewidths=0.8, label=split)
        ax.plot([lo, hi], [lo, hi], "k-", lw=0.8, label="y = x")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_title(model)
        ax.set_xlabel("measured cycles")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("predicted cycles")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    save_png(fig, out, dpi=100)
    plt.close(fig)


def errors(df, out):
    models = models_of(df)
    held = df[(df["split"] == "held-out")].dropna(subset=["signed_error"])
    data = [100 * held[held["model"] == m]["signed_error"] for m in models]
    fig, ax = plt.subplots(figsize=(1.6 * len(models) + 2, 4))
    box = ax.boxplot(data, whis=(5, 95), showfliers=True, patch_artist=True)
    for patch, model in zip(box["boxes"], models):
        patch.set_facecolor(COLOURS.get(model, "lightgrey"))
        patch.set_alpha(0.5)
    ax.set_xticks(range(1, len(models) + 1), models)
    ax.axhline(0, color="k", lw=0.8)
    for bound in (-10, 10):
        ax.axhline(bound, color="k", lw=0.6, ls=":")
    ax.set_yscale("symlog", linthresh=10)
    ax.set_ylabel("(predicted - measured) / measured, %  (held-out)")
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    save_png(fig, out, dpi=130)
    plt.close(fig)


def order_of(kernel):
    m = re.search(r"order (\d+)", kernel)
    return int(m.group(1)) if m else 0


def warps_figure(df, out):
    st = df[(df["family"] == "stencil") & df["warps_per_sm"].notna()]
    if st.empty:
        return False
    panels = sorted(set(zip(st["kernel"], st["size"])), key=lambda p: (p[1], order_of(p[0]), p[0]))
    cols = min(4, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 2.9 * rows), squeeze=False)
    for ax, (kernel, size) in zip(axes.flat, panels):
        part = st[(st["kernel"] == kernel) & (st["size"] == size)]
        measured = part.groupby("warps_per_sm")["measured_cycles"].min()
        ax.plot(measured.index, measured.values, "ko-", lw=1.5, ms=3, label="measured")
        # The default model only: four models' lines in dozens of panels make the figure unreadable
        # (validation_scatter.png compares the models).
        for model in [m for m in models_of(part) if m == "hopper"] or models_of(part):
            pred = part[part["model"] == model].groupby("warps_per_sm")["predicted_cycles"].min()
            ax.plot(pred.index, pred.values, "--", color=COLOURS.get(model, "grey"), lw=1, label=model)
        ax.set_title(f"{kernel}, {size}", fontsize=9)
        ax.set_yscale("log")
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xticks(sorted(set(part["warps_per_sm"])))
        ax.grid(True, alpha=0.3)
    for ax in axes.flat[len(panels):]:
        ax.axis("off")
    for ax in axes[:, 0]:
        ax.set_ylabel("cycles")
    for ax in axes[-1, :]:
        ax.set_xlabel("warps per SM")
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    save_png(fig, out, dpi=55)  # one panel per kernel and size: dozens of panels (the size budget)
    plt.close(fig)
    return True


def classes_figure(held_out_csv, out):
    """Per class: predicted vs measured (leave-one-class-out) and the signed error of each held-out evaluation."""
    if not os.path.exists(held_out_csv):
        return False
    df = pd.read_csv(held_out_csv).dropna(subset=["signed_error"])
    if df.empty:
        return False
    classes = sorted(set(df["class"]))
    evaluations = list(dict.fromkeys(df["evaluation"]))
    cmap = plt.get_cmap("tab20")
    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 6.5), gridspec_kw={"width_ratios": [1, 1.6]})
    loco = df[df["evaluation"] == "leave-one-class-out"]
    for i, c in enumerate(classes):
        part = loco[loco["class"] == c]
        left.scatter(part["measured_cycles"], part["predicted_cycles"], s=10, color=cmap(i % 20), label=c)
    lo = min(loco["measured_cycles"].min(), loco["predicted_cycles"].min()) * 0.7
    hi = max(loco["measured_cycles"].max(), loco["predicted_cycles"].max()) * 1.4
    left.plot([lo, hi], [lo, hi], "k-", lw=0.8)
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("measured cycles")
    left.set_ylabel("predicted cycles (hopper, its class left out of the fit)")
    left.set_title("leave-one-class-out")
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=6, ncol=2)
    width = 0.8 / max(1, len(evaluations))
    for k, e in enumerate(evaluations):
        data = [100 * df[(df["evaluation"] == e) & (df["class"] == c)]["signed_error"] for c in classes]
        pos = [i + 1 + (k - (len(evaluations) - 1) / 2) * width for i in range(len(classes))]
        box = right.boxplot(data, positions=pos, widths=width * 0.9, whis=(5, 95), showfliers=False, patch_artist=True)
        for patch in box["boxes"]:
            patch.set_facecolor(plt.get_cmap("Set2")(k))
        right.plot([], [], color=plt.get_cmap("Set2")(k), lw=6, label=e)
    right.set_xticks(range(1, len(classes) + 1), classes, rotation=60, ha="right", fontsize=8)
    right.axhline(0, color="k", lw=0.8)
    for bound in (-15, 15):
        right.axhline(bound, color="k", lw=0.6, ls=":")
    right.set_ylabel("(predicted - measured) / measured, %")
    right.set_title("signed error per class (box: quartiles, whiskers: 5-95 %)")
    right.grid(True, axis="y", alpha=0.3)
    right.legend(fontsize=7)
    fig.tight_layout()
    save_png(fig, out, dpi=110)
    plt.close(fig)
    return True


def external_figure(launches_csv, out):
    """The external set per half: predicted against measured, and the signed error against the measured time."""
    if not os.path.exists(launches_csv):
        return False
    df = pd.read_csv(launches_csv).dropna(subset=["predicted_us", "measured_us"])
    halves = [h for h in ("development", "held-out") if h in set(df["half"])]
    if df.empty or not halves:
        return False
    bounds = sorted(set(df["bound"].fillna("-")))
    cmap = plt.get_cmap("tab10")
    colour = {b: cmap(i % 10) for i, b in enumerate(bounds)}
    fig, axes = plt.subplots(2, len(halves), figsize=(5.2 * len(halves), 9.0), squeeze=False)
    lo = min(df["measured_us"].min(), df["predicted_us"].min()) * 0.7
    hi = max(df["measured_us"].max(), df["predicted_us"].max()) * 1.4
    for col, half in enumerate(halves):
        rows = df[df["half"] == half]
        top, bottom = axes[0][col], axes[1][col]
        for b in bounds:
            part = rows[rows["bound"].fillna("-") == b]
            if part.empty:
                continue
            top.scatter(part["measured_us"], part["predicted_us"], s=14, color=colour[b], label=b, alpha=0.8)
            inside = part["error_pct"] <= 140
            bottom.scatter(part["measured_us"][inside], part["error_pct"][inside], s=14, color=colour[b], alpha=0.8)
            # Beyond the axis (over-predicted more than 140 %): a triangle at its edge.
            bottom.scatter(part["measured_us"][~inside], [145] * int((~inside).sum()), s=22, marker="^",
                           color=colour[b], alpha=0.8)
        top.plot([lo, hi], [lo, hi], color="black", lw=0.8)
        top.fill_between([lo, hi], [lo * 0.75, hi * 0.75], [lo * 1.25, hi * 1.25], color="grey", alpha=0.15, lw=0)
        top.set_xscale("log")
        top.set_yscale("log")
        top.set_xlim(lo, hi)
        top.set_ylim(lo, hi)
        big = rows[rows["measured_us"] >= 20]
        mape = big["error_pct"].abs().mean() if not big.empty else float("nan")
        top.set_title(f"{half}: {rows['app'].nunique()} applications, {len(rows)} launches\n"
                      f"MAPE {mape:.1f} % over {len(big)} launches >= 20 us", fontsize=9)
        top.set_xlabel("measured (us)")
        top.set_ylabel("predicted (us)")
        bottom.axhline(0, color="black", lw=0.8)
        bottom.axvline(20, color="grey", lw=0.8, ls="--")
        bottom.set_xscale("log")
        bottom.set_ylim(-100, 150)
        bottom.set_xlabel("measured (us)")
        bottom.set_ylabel("error (%): + over-, - under-predicted (^: beyond 140 %)")
    axes[0][-1].legend(fontsize=7, loc="upper left", title="bound", title_fontsize=7)
    fig.suptitle("external set (hopper): predicted against measured, per distinct launch; band +-25 %", fontsize=10)
    fig.tight_layout()
    save_png(fig, out, dpi=80)
    plt.close(fig)
    return True


def main(path):
    df = pd.read_csv(path)
    folder = os.path.dirname(path) or "."
    scatter(df, os.path.join(folder, "validation_scatter.png"))
    errors(df, os.path.join(folder, "validation_errors.png"))
    wrote = ["validation_scatter.png", "validation_errors.png"]
    if warps_figure(df, os.path.join(folder, "validation_warps.png")):
        wrote.append("validation_warps.png")
    if classes_figure(os.path.join(folder, "validation-held-out.csv"), os.path.join(folder, "validation_classes.png")):
        wrote.append("validation_classes.png")
    if external_figure(os.path.join(folder, "external", "launches.csv"), os.path.join(folder, "external", "accuracy.png")):
        wrote.append("external/accuracy.png")
    print(f"plot_validation: wrote {', '.join(wrote)} in {folder}/")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
