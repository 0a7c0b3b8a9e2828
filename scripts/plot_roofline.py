#!/usr/bin/env python3
"""The roofline of a GPU's measured ceilings, from its device profile (`warpmodel characterize`):

  plot_roofline.py results/h200/device.json [--points POINTS.csv] [-o OUT.png]

Log-log: arithmetic intensity (FLOP per byte) against FLOP/s.
  compute roofs  horizontal: FP32 and FP64 FMA throughput measured on every SM (device.json
                 measurements.throughput.fp32_fma / fp64_fma ops_per_clk_per_sm x SMs x the profile's
                 SM clock x 2 FLOP per FMA), solid; the same from spec_ops_per_clk_per_sm, dashed
  memory roofs   slanted: the measured DRAM read bandwidth (dram_copy where the profile has no
                 dram_read), L2 read (l2_read) and shared memory read (shared_read), GB/s from
                 measurements.bandwidth; each drawn up to the measured FP32 roof
Each roof is labelled with its number (and, for the memory roofs, the intensity where it meets the
FP32 roof). --points draws a CSV of columns label,intensity_flop_per_byte,flops_per_second[,bound] as
labelled markers (one colour per bound), e.g. an application's launches (`warpmodel roofline`); a row
whose intensity and FLOP/s cells are both empty (a launch without FLOPs or DRAM bytes) is not drawn.
OUT defaults to roofline.png beside DEVICE_JSON. The PNG is the same bytes for the same input with the
same matplotlib (Agg; its Software chunk names the version, as the other figures' do).
Bad input (unreadable or malformed JSON, a profile without the measured ceilings, a malformed points
CSV): one line on stderr, exit 2, nothing written.
"""
import argparse
import csv
import json
import math
import os
import sys

FLOP_PER_FMA = 2
# (key in measurements.throughput, label, colour)
COMPUTE = [("fp32_fma", "FP32", "tab:blue"), ("fp64_fma", "FP64", "tab:purple")]
# (keys in measurements.bandwidth, first found wins; label, colour)
MEMORY = [(("dram_read", "dram_copy"), "DRAM", "tab:red"), (("l2_read",), "L2", "tab:orange"),
          (("shared_read",), "shared", "tab:green")]
POINT_COLOURS = ["tab:brown", "tab:pink", "tab:gray", "tab:olive", "tab:cyan", "black"]
DPI = 100
FIGSIZE = (9.0, 6.0)


class InputError(Exception):
    pass


def positive(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def get(tree, dotted):
    for key in dotted.split("."):
        if not isinstance(tree, dict) or key not in tree:
            return None
        tree = tree[key]
    return tree


def ceilings(device):
    """(compute roofs, memory roofs) of a device profile: compute as (label, measured FLOP/s, spec FLOP/s
    or None, colour), memory as (label, bandwidth key, bytes/s, colour). Raises InputError where the
    profile lacks the SM count and clock, or has no measured compute roof or no measured memory roof."""
    if not isinstance(device, dict):
        raise InputError("expected a JSON object (a device profile)")
    sms, clock = get(device, "hardware.sm_count"), get(device, "hardware.sm_clock_mhz")
    if not positive(sms) or not positive(clock):
        raise InputError("no positive hardware.sm_count and hardware.sm_clock_mhz")
    per_clk = sms * clock * 1e6 * FLOP_PER_FMA  # FLOP/s per (FMA per clock per SM)
    compute = []
    for key, label, colour in COMPUTE:
        entry = get(device, f"measurements.throughput.{key}")
        if isinstance(entry, dict) and positive(entry.get("ops_per_clk_per_sm")):
            spec = entry.get("spec_ops_per_clk_per_sm")
            compute.append((label, entry["ops_per_clk_per_sm"] * per_clk,
                            spec * per_clk if positive(spec) else None, colour))
    memory = []
    for keys, label, colour in MEMORY:
        for key in keys:
            gbs = get(device, f"measurements.bandwidth.{key}.gbs")
            if positive(gbs):
                memory.append((label, key, gbs * 1e9, colour))
                break
    if not compute:
        raise InputError("no measured compute roof (measurements.throughput.fp32_fma/fp64_fma ops_per_clk_per_sm)")
    if not memory:
        raise InputError("no measured memory roof (measurements.bandwidth dram_read/dram_copy/l2_read/shared_read gbs)")
    return compute, memory


def read_points(path):
    """[(label, intensity, FLOP/s, bound)] of a points CSV."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            table = list(csv.reader(f))
    except (OSError, csv.Error, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not a readable CSV file ({e})") from e
    columns = [c.strip() for c in table[0]] if table else []
    rows = [dict(zip(columns, r)) for r in table[1:] if r]
    missing = {"label", "intensity_flop_per_byte", "flops_per_second"} - set(columns)
    if missing:
        raise InputError(f"{path}: no column(s) {', '.join(sorted(missing))} "
                         "(want label,intensity_flop_per_byte,flops_per_second[,bound])")
    points = []
    for i, r in enumerate(rows, start=2):
        if not (r.get("intensity_flop_per_byte") or "").strip() and not (r.get("flops_per_second") or "").strip():
            continue  # nothing to draw (warpmodel roofline's launches without FLOPs or DRAM bytes)
        try:
            x, y = float(r.get("intensity_flop_per_byte")), float(r.get("flops_per_second"))
        except (TypeError, ValueError):
            x = y = float("nan")
        if not (positive(x) and positive(y)):
            raise InputError(f"{path}:{i}: intensity_flop_per_byte and flops_per_second must be positive numbers")
        points.append((r.get("label") or "", x, y, (r.get("bound") or "").strip()))
    return points


def si(value, unit):
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1, "")):
        if value >= scale:
            return f"{fmt(value / scale)} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def fmt(x):
    """Three significant digits, no exponent."""
    digits = max(0, 2 - int(math.floor(math.log10(abs(x))))) if x else 0
    return f"{x:.{digits}f}"


def decade_below(x):
    return 10.0 ** math.floor(math.log10(x))


def decade_above(x):
    return 10.0 ** math.ceil(math.log10(x))


def draw(device, compute, memory, points, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from png_output import save_png

    top = max(c[1] for c in compute)           # the highest measured compute roof
    top_all = max([c[1] for c in compute] + [c[2] for c in compute if c[2]])
    fastest = max(m[2] for m in memory)        # the highest memory roof
    slowest = min(m[2] for m in memory)
    ridges = [c[1] / m[2] for c in compute for m in memory]
    x_lo = decade_below(min(ridges) / 50)
    x_hi = decade_above(max(ridges) * 50)
    if points:
        x_lo = min(x_lo, decade_below(min(p[1] for p in points) / 2))
        x_hi = max(x_hi, decade_above(max(p[1] for p in points) * 2))
    y_lo = decade_below(slowest * x_lo)
    y_hi = top_all * 6
    if points:
        y_lo = min(y_lo, decade_below(min(p[2] for p in points) / 2))
        y_hi = max(y_hi, max(p[2] for p in points) * 3)

    fig = plt.figure(figsize=FIGSIZE)
    ax = fig.add_axes([0.1, 0.1, 0.86, 0.8])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)
    ax.grid(True, which="major", alpha=0.3)
    ax.grid(True, which="minor", alpha=0.08)
    ax.set_xlabel("arithmetic intensity (FLOP per byte)")
    ax.set_ylabel("FLOP/s")
    gpu = get(device, "provenance.gpu") or device.get("name") or "GPU"
    sms, clock = get(device, "hardware.sm_count"), get(device, "hardware.sm_clock_mhz")
    ax.set_title(f"{gpu}: roofline of the measured ceilings ({sms} SMs at {fmt(clock)} MHz; device.json)",
                 fontsize=11)

    def angle(x0, y0, x1, y1):
        (a, b), (c, d) = ax.transData.transform([(x0, y0), (x1, y1)])
        return math.degrees(math.atan2(d - b, c - a))

    for i, (label, peak, spec, colour) in enumerate(compute):
        ax.plot([peak / fastest, x_hi], [peak, peak], color=colour, lw=2.5, alpha=0.7)
        text = f"{label} FMA: {si(peak, 'FLOP/s')} measured"
        if spec:
            ax.plot([spec / fastest, x_hi], [spec, spec], color=colour, lw=1, ls="--")
            text += f"\n{100 * peak / spec:.0f} % of the spec's {si(spec, 'FLOP/s')} (dashed)"
        # The highest roof labelled above its line, the others below theirs.
        above = peak == top
        ax.text(x_hi / 1.15, peak * 1.15 if above else peak / 1.15, text, color=colour, fontsize=8.5,
                ha="right", va="bottom" if above else "top")

    for label, key, bw, colour in memory:
        x_end = top / bw
        ax.plot([x_lo, x_end], [bw * x_lo, top], color=colour, lw=2)
        ax.plot([x_end], [top], marker="o", ms=4, color=colour)
        text = f"{label} {fmt(bw / 1e9)} GB/s ({key}); ridge {fmt(x_end)} FLOP/B"
        x_text = max(x_lo * 1.6, y_lo * 3 / bw)  # where the roof enters the axes
        ax.text(x_text, bw * x_text * 1.3, text, color=colour, fontsize=8.5, ha="left", va="bottom",
                rotation=angle(x_lo, bw * x_lo, x_end, top), rotation_mode="anchor")

    if points:
        bounds = sorted({p[3] for p in points})
        for i, bound in enumerate(bounds):
            sel = [p for p in points if p[3] == bound]
            ax.plot([p[1] for p in sel], [p[2] for p in sel], ls="none", marker="o", ms=6,
                    color=POINT_COLOURS[i % len(POINT_COLOURS)], label=bound or "points")
            for name, x, y, _ in sel:
                ax.annotate(name, (x, y), xytext=(4, 4), textcoords="offset points", fontsize=7,
                            color=POINT_COLOURS[i % len(POINT_COLOURS)])
        if any(bounds):
            ax.legend(title="bound", fontsize=8, title_fontsize=8, loc="lower right")

    save_png(fig, out, dpi=DPI)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description="The roofline of a device profile's measured ceilings.")
    parser.add_argument("device", metavar="DEVICE_JSON")
    parser.add_argument("--points", metavar="POINTS.csv",
                        help="CSV: label,intensity_flop_per_byte,flops_per_second[,bound], drawn as points")
    parser.add_argument("-o", "--output", metavar="OUT.png",
                        help="the PNG to write (default: roofline.png beside DEVICE_JSON)")
    args = parser.parse_args()
    out = args.output or os.path.join(os.path.dirname(os.path.abspath(args.device)), "roofline.png")
    try:
        try:
            with open(args.device, encoding="utf-8") as f:
                device = json.load(f)
        except (OSError, ValueError) as e:
            raise InputError(f"{args.device}: not a readable JSON file ({e})") from e
        try:
            compute, memory = ceilings(device)
        except InputError as e:
            raise InputError(f"{args.device}: {e}") from e
        points = read_points(args.points) if args.points else []
    except InputError as e:
        print(f"plot_roofline.py: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    draw(device, compute, memory, points, out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
