#!/usr/bin/env python3
"""One-page report of a characterised GPU: OUTDIR/README.md, from the files in OUTDIR.

  gpu_report.py results/h100-80gb-hbm3

Called by the `report` stage of scripts/characterize_gpu.sh and by scripts/regenerate_results.sh (for
every results/<gpu>/ with a device.json, so that the committed READMEs are what this script writes).
Sections, each from one file; a section whose file is missing is replaced by a line saying so:
  the GPU            characterize_gpu.provenance.json (GPU, UUID, driver, CUDA, date, commit, stages),
                     else device.json's provenance
  latency, bandwidth, issue rates, departure delays, barrier and launch    device.json
  model accuracy     validation.json (held-out summaries, leave-one-class-out, cross-GPU)
  best variants      stencils.csv, adi.csv
  figures            every *.png in OUTDIR, linked with a caption
The output depends only on those files (no clock, no absolute path): the same folder gives the same README.
Bad input (no such folder, malformed JSON or CSV): one line on stderr, exit 2, nothing written.
"""
import csv
import json
import math
import os
import sys
import tempfile

# One-line captions of the figures the project's scripts draw (anything else is listed as "figure").
CAPTIONS = {
    "adi_steps.png": "ADI step of every variant against the grid's cells, and the state-only traffic against issue 15's target (scripts/plot_adi.py)",
    "ubench_latency_vs_warps.png": "per-operation latency against warps per block, as thesis figures 4.3-4.14 (scripts/plot_ubench.py)",
    "ubench_memory_vs_warps.png": "shared, L1, L2 and DRAM latency and the departure completion time against warps (scripts/plot_ubench.py)",
    "ubench_footprint.png": "pointer-chase latency against footprint, ld.global.ca and .cg: the L1, L2 and DRAM plateaus (scripts/plot_ubench.py)",
    "validation_scatter.png": "predicted against measured cycles of every validation launch, per model (scripts/plot_validation.py)",
    "validation_errors.png": "signed error of each model on the held-out half (scripts/plot_validation.py)",
    "validation_warps.png": "stencil cycles against warps per SM, measured and predicted: the thesis's figure 4.15 layout",
    "validation_classes.png": "hopper per kernel class, constants that never saw the class: leave-one-class-out and cross-GPU",
    "wavefield.png": "slices of the acoustic propagator's pressure field from run-stencil snapshots (scripts/plot_wavefield.py)",
}
MISSING = "_Skipped: {file} is missing{hint}._\n"


class InputError(Exception):
    pass


def load_json(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: not valid JSON ({e})") from e


def load_csv(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return list(csv.DictReader(f))
    except (OSError, csv.Error, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not a readable CSV file ({e})") from e


def num(x, digits=4):
    """`digits` significant digits, thousands not separated, trailing zeros trimmed; "-" for none."""
    if x is None or x == "" or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    x = float(x)
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(x)))))
    text = f"{x:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def pct(fraction, digits=3):
    return "-" if fraction is None else num(100 * float(fraction), digits) + " %"


def table(headers, rows):
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def get(tree, dotted, default=None):
    """tree["a"]["b"] for "a.b", or default where any step is missing or not an object."""
    for key in dotted.split("."):
        if not isinstance(tree, dict) or key not in tree:
            return default
        tree = tree[key]
    return tree


# --- sections -----------------------------------------------------------------------------------

def gpu_section(run, device, folder):
    """Who measured what: the last characterize_gpu.sh run beside the characterize run of device.json
    (a run of some stages only keeps the device.json of an earlier run, so the two can differ)."""
    out = "## The GPU\n\n"
    if run is None and device is None:
        return out + MISSING.format(file="characterize_gpu.provenance.json and device.json", hint="")
    prov = device.get("provenance", {}) if isinstance(device, dict) else {}
    fields = [("GPU", "gpu", "gpu"), ("UUID", "gpu_uuid", "gpu_uuid"), ("driver", "driver", "driver"),
              ("CUDA", "cuda", "cuda_runtime"), ("date", "date", "date"), ("commit", "commit", "commit"),
              ("command", "command", "command"), ("PCI bus", None, "pci_bus_id")]
    columns = []  # (header, source dict, key index in fields)
    if run is not None:
        columns.append(("scripts/characterize_gpu.sh (characterize_gpu.provenance.json)", run, 1))
    if prov:
        columns.append(("warpmodel characterize (device.json provenance)", prov, 2))
    if run is None:
        out += ("_characterize_gpu.provenance.json is missing (this folder was not written by "
                "scripts/characterize_gpu.sh): the GPU's UUID and the stages run are unknown; the rest is from "
                "device.json's provenance._\n\n")
    rows = []
    for field in fields:
        cells = [str(src.get(field[k])) if field[k] and src.get(field[k]) not in (None, "") else "-"
                 for _, src, k in columns]
        if any(c != "-" for c in cells):
            if field[0] == "command":
                cells = [f"`{c}`" if c != "-" else c for c in cells]
            rows.append([field[0]] + cells)
    if rows:
        out += table([""] + [h for h, _, _ in columns], rows)
    hw = (device or {}).get("hardware", {})
    if hw:
        out += (f"\n{hw.get('sm_count', '-')} SMs at {num(hw.get('sm_clock_mhz'))} MHz, compute capability "
                f"{hw.get('compute_capability', '-')}, peak DRAM bandwidth {num(hw.get('mem_peak_bandwidth_gbs'))} GB/s "
                "(device.json `hardware`).\n")
    stages = (run or {}).get("stages")
    if isinstance(stages, dict) and stages:
        parts = []
        for name, s in stages.items():
            status = s.get("status")
            seconds = f", {s['seconds']} s" if "seconds" in s else ""
            parts.append(f"{name} " + ("ok" if status == 0 else f"FAILED (exit {status})" if isinstance(status, int)
                                         else str(status)) + seconds)
        out += "\nStages of the characterize_gpu.sh run: " + "; ".join(parts) + ".\n"
    out += earlier_runs_section(folder)
    return out


def stage_summary(stages):
    parts = []
    for name, s in (stages or {}).items():
        status = s.get("status")
        if status == "skipped (done before)":
            continue
        seconds = f" {s['seconds']} s" if "seconds" in s else ""
        parts.append(f"{name}" + ("" if status == 0 else f" FAILED (exit {status})" if isinstance(status, int)
                                  else f" {status}") + seconds)
    return ", ".join(parts) or "-"


def earlier_runs_section(folder):
    """The other characterize_gpu.sh runs kept in the folder (characterize_gpu.<name>.provenance.json):
    a folder is often written by several runs of some stages each (one device call each)."""
    runs = []
    for name in sorted(os.listdir(folder)):
        if name.startswith("characterize_gpu.") and name.endswith(".provenance.json") \
                and name != "characterize_gpu.provenance.json":
            run = load_json(folder, name)
            if isinstance(run, dict):
                runs.append((run.get("date") or "", name, run))
    if not runs:
        return ""
    rows = [[f"[{name}]({name})", run.get("date", "-"), run.get("commit", "-"), str(run.get("gpu_uuid", "-")),
             stage_summary(run.get("stages"))] for _, name, run in sorted(runs)]
    return ("\nEvery characterize_gpu.sh run kept in this folder (stages run, seconds; a stage an earlier run "
            "of the same commit and GPU had done is left out):\n\n"
            + table(["provenance", "date", "commit", "GPU UUID", "stages"], rows))


def latency_section(device):
    out = "## Latency by level\n\nOne warp, dependent loads or operations (device.json `latency_cycles`; "
    out += "L2 near/far from `measurements.l2_near_far`); ns at the profile's SM clock.\n\n"
    lat = device.get("latency_cycles", {})
    clock = get(device, "hardware.sm_clock_mhz")
    levels = [("L1 hit", lat.get("l1_hit")), ("shared load", lat.get("shared_load")),
              ("L2 hit (4 MiB chase)", lat.get("l2_hit")),
              ("L2 near", get(device, "measurements.l2_near_far.near_cycles.mean")),
              ("L2 far", get(device, "measurements.l2_near_far.far_cycles.mean")),
              ("DRAM", lat.get("dram")), ("FP (avg_inst_lat: fp32 division)", lat.get("fp")),
              ("SFU", lat.get("sfu")), ("local load", get(device, "measurements.latency.local_load.warps_1.mean_cycles")),
              ("global atomic", get(device, "measurements.latency.global_atomic.warps_1.mean_cycles"))]
    rows = [(name, num(c), num(c / clock * 1000) if clock else "-") for name, c in levels if c is not None]
    return out + table(["level", "cycles", "ns"], rows)


def bandwidth_section(device):
    out = "## Bandwidth\n\n"
    measured = get(device, "measurements.bandwidth", {}) or {}
    short = device.get("bandwidth_gbs", {}) or {}
    sms, clock = get(device, "hardware.sm_count"), get(device, "hardware.sm_clock_mhz")
    rows = []
    for key in ("dram_read", "dram_write", "dram_copy", "l2_read", "l2_write", "shared_read"):
        entry = measured.get(key, {}) if isinstance(measured.get(key), dict) else {}
        gbs = entry.get("gbs", short.get(key))
        if gbs is None:
            continue
        per_clk_sm = gbs * 1e9 / (sms * clock * 1e6) if sms and clock else None
        u = f" ± {num(entry['u_gbs'], 2)}" if entry.get("u_gbs") is not None else ""
        rows.append((key, num(gbs) + u, num(per_clk_sm), num(entry.get("spec_gbs")), pct(entry.get("fraction_of_spec"))))
    if not rows:
        return out + "_No bandwidth in device.json (`measurements.bandwidth`, `bandwidth_gbs`)._\n"
    out += ("Whole GPU, CUDA events (device.json `measurements.bandwidth`); spec: the runtime's peak "
            "(2 x memory clock x bus width) for DRAM, 128 B/clk/SM for shared memory, none published for L2.\n\n")
    return out + table(["", "GB/s", "bytes/clk/SM", "spec GB/s", "of spec"], rows)


def issue_section(device):
    out = "## Issue rates and LSU throughput\n\n"
    throughput = get(device, "measurements.throughput", {}) or {}
    rows = []
    for name in sorted(throughput):
        entry = throughput[name]
        if not isinstance(entry, dict):
            continue
        for key, unit in (("ops_per_clk_per_sm", "ops/clk/SM"), ("requests_per_clk_per_sm", "requests/clk/SM"),
                          ("ops_per_clk", "ops/clk (whole GPU)")):
            if entry.get(key) is not None:
                extra = (f"{num(entry['sectors_per_clk_per_sm'])} sectors/clk/SM"
                         if entry.get("sectors_per_clk_per_sm") is not None else "")
                rows.append((name, num(entry[key]), unit, num(entry.get("spec_" + key)),
                             pct(entry.get("fraction_of_spec")), extra))
                break
    if not rows:
        return out + "_No throughput in device.json (`measurements.throughput`)._\n"
    out += "32 warps per SM, one block per SM on every SM (device.json `measurements.throughput`).\n\n"
    return out + table(["benchmark", "rate", "unit", "spec", "of spec", ""], rows)


def departure_section(device):
    out = "## Departure delays, barrier, launch\n\n"
    lat = device.get("latency_cycles", {})
    dep = get(device, "measurements.departure_delay", {}) or {}
    rows = []
    for kind in ("coalesced", "uncoalesced"):
        direct = lat.get(f"departure_delay_{kind}")
        u = get(dep, f"departure_{kind}.u_cycles")
        if direct is not None:
            rows.append((f"departure delay, {kind} (direct: completion-time slope)",
                         num(direct) + (f" ± {num(u, 2)}" if u is not None else ""), "cycles"))
        if dep.get(f"thesis_eq_4_25_{kind}") is not None:
            rows.append((f"departure delay, {kind} (thesis eq 4.25)", num(dep[f"thesis_eq_4_25_{kind}"]), "cycles"))
    barrier = get(device, "measurements.barrier.cycles_32_warps")
    if barrier is not None:
        rows.append(("barrier (bar.sync), 32 warps", num(barrier), "cycles"))
    launch = get(device, "measurements.launch", {}) or {}
    for key, label, unit in (("empty_kernel_us", "empty kernel, single launch (median)", "us"),
                             ("back_to_back_us", "empty kernel, back to back", "us"),
                             ("block_dispatch_cycles", "block dispatch, per block per SM", "cycles"),
                             ("wave_cycles", "one wave of one block per SM", "cycles")):
        if launch.get(key) is not None:
            rows.append((label, num(launch[key]), unit))
    if not rows:
        return out + "_No departure delays in device.json._\n"
    return out + table(["", "value", "unit"], rows)


def score_row(label, s):
    return (label, s.get("cases", "-"), pct(s.get("mape")), pct(s.get("median_abs_error")),
            pct(s.get("mean_signed_error")), pct(s.get("within_10_percent")), pct(s.get("within_25_percent")))


SCORE_HEADERS = ["", "cases", "MAPE", "median abs error", "mean signed error", "within 10 %", "within 25 %"]


def accuracy_section(validation):
    out = "## Model accuracy\n\n"
    if validation is None:
        return out + MISSING.format(file="validation.json", hint=" (`warpmodel validate --from` writes it)")
    measured = (validation.get("provenance") or {}).get("measurements") or {}
    l2 = measured.get("l2_before_each_launch")
    out += ("Cache state of the measured launches: " +
            ("L2 written back and emptied before every timed and counted launch (as Nsight Compute measures by "
             "default)" if isinstance(l2, str) and l2.startswith("flushed")
             else "L2 as the previous launch left it (a sweep from before the cold protocol)") +
            " (validation-measurements.json `provenance.l2_before_each_launch`).\n\n")
    summaries = validation.get("summaries", [])
    if summaries:
        out += ("The split's held-out half (validation.json `summaries`; the hopper constants fitted on the "
                "training half):\n\n")
        out += table(["model", "held-out cases", "MAPE", "median abs error", "max abs error", "Spearman",
                      "top-1 shape"],
                     [(("**hopper**" if s.get("model") == "hopper" else s.get("model")), s.get("held_out_cases", "-"),
                       pct(s.get("mape")), pct(s.get("median_abs_error")), pct(s.get("max_abs_error")),
                       num(s.get("spearman"), 3), pct(s.get("top1_hit_rate"))) for s in summaries])
    loco = validation.get("leave_one_class_out")
    rows = []
    if isinstance(loco, dict):
        if loco.get("pooled"):
            rows.append(score_row("leave-one-class-out, pooled", loco["pooled"]))
        classes = [c for c in loco.get("classes", []) if c.get("mean_signed_error") is not None]
        if classes:
            worst = max(classes, key=lambda c: (abs(c["mean_signed_error"]), c.get("class", "")))
            direction = "under" if worst["mean_signed_error"] < 0 else "over"
            rows.append(score_row(f"worst class: {worst.get('class')} ({direction}-predicted)", worst))
    for cross in validation.get("cross_gpu", []) or []:
        if cross.get("pooled"):
            rows.append(score_row(cross.get("evaluation", "cross-GPU"), cross["pooled"]))
    shape = validation.get("cross_shape")
    if isinstance(shape, dict):
        for key, label, best in (("from_reference", "cross-shape, the reference's counters kept", "reference"),
                                 ("from_reference_derived", "cross-shape, memory counters derived per shape", "derived"),
                                 ("from_own_counters", "the same shapes from their own counters", "own")):
            if isinstance(shape.get(key), dict):
                within = shape.get(f"best_within_5_percent_{best}")
                rows.append(score_row(f"{label} (best shape within 5 %: {pct(within)})", shape[key]))
    if rows:
        out += ("\nHopper on launches its constants never saw (leave-one-class-out: each class predicted by "
                "constants fitted on the others; worst class: the largest |mean signed error|; cross-GPU: the "
                "other GPU's constants; cross-shape: one measured shape's counters predicting the kernel's other "
                "shapes, see validation.md):\n\n")
        out += table(SCORE_HEADERS, rows)
    if not summaries and not rows:
        out += "_validation.json has no summaries._\n"
    return out


def best_stencils(rows):
    out = "### Stencils (stencils.csv)\n\n"
    if rows is None:
        return out + MISSING.format(file="stencils.csv", hint=" (the `stencils` stage writes it)")
    try:
        sizes = sorted({int(r["n"]) for r in rows})
    except (KeyError, ValueError) as e:
        raise InputError(f"stencils.csv: expected a column n of integers ({e})") from e
    if not sizes:
        return out + "_stencils.csv has no rows._\n"
    n = sizes[-1]
    best = {}
    for r in rows:
        if int(r["n"]) != n or not r.get("ms_per_step"):
            continue
        order = int(r["order"])
        if order not in best or float(r["ms_per_step"]) < float(best[order]["ms_per_step"]):
            best[order] = r
    out += f"Fastest variant and launch per order at {n}^3 (median ms per step; fraction of the copy bandwidth):\n\n"
    table_rows = []
    for order in sorted(best):
        r = best[order]
        launch = r.get("block", "")
        if r.get("depth"):
            launch += f" depth {num(r['depth'])}"
        if r.get("loader"):
            launch += f" {r['loader']}"
        table_rows.append((order, r["variant"], launch, num(r["ms_per_step"]),
                           num(float(r["effective_bytes_per_second"]) / 1e9) if r.get("effective_bytes_per_second") else "-",
                           num(r.get("fraction_of_copy"), 3)))
    return out + table(["order", "variant", "launch", "ms per step", "effective GB/s", "of copy"], table_rows)


def best_adi(rows):
    out = "### ADI (adi.csv)\n\n"
    if rows is None:
        return out + MISSING.format(file="adi.csv", hint=" (the `adi` stage writes it)")
    best = {}
    for r in rows:
        if r.get("kernel") != "step" or not r.get("median_us"):
            continue
        nx = int(r.get("nx") or r["n"])  # adi.csv before issue 15 had one "n" column (square grids)
        key = ((nx, int(r.get("ny") or nx)), r["precision"])
        if key not in best or float(r["median_us"]) < float(best[key]["median_us"]):
            best[key] = r
    if not best:
        return out + "_adi.csv has no whole-step rows._\n"
    out += "Fastest variant of a whole ADI step per size and precision (median us; fraction of the copy bandwidth):\n\n"
    table_rows = [(f"{n[0]}^2" if n[0] == n[1] else f"{n[0]} x {n[1]}", precision, r["variant"], num(r["median_us"]), num(r.get("effective_gbs")),
                   num(r.get("fraction_of_copy"), 3)) for (n, precision), r in sorted(best.items())]
    return out + table(["size", "precision", "variant", "us per step", "effective GB/s", "of copy"], table_rows)


def figures_section(folder):
    out = "## Figures\n\n"
    pngs = sorted(f for f in os.listdir(folder) if f.endswith(".png"))
    if not pngs:
        return out + "_No figures (*.png) in this folder._\n"
    return out + "".join(f"- [{f}]({f}): {CAPTIONS.get(f, 'figure')}\n" for f in pngs)


def report(folder):
    device = load_json(folder, "device.json")
    run = load_json(folder, "characterize_gpu.provenance.json")
    validation = load_json(folder, "validation.json")
    if device is not None and not isinstance(device, dict):
        raise InputError(f"{os.path.join(folder, 'device.json')}: expected a JSON object (a device profile)")
    name = ((run or {}).get("gpu") or get(device, "provenance.gpu") or (device or {}).get("name")
            or os.path.basename(os.path.normpath(folder)))
    text = f"# {name}\n\n"
    text += ("One-page report of this GPU from the files in this folder, written by `scripts/gpu_report.py` "
             "(the `report` stage of `scripts/characterize_gpu.sh`; `scripts/regenerate_results.sh` rewrites it): "
             "do not edit by hand. Device profiles side by side: `warpmodel compare-devices`.\n\n")
    text += gpu_section(run, device, folder) + "\n"
    if device is None:
        text += "## Latency, bandwidth, issue rates, departure delays\n\n"
        text += MISSING.format(file="device.json", hint=" (`warpmodel characterize` writes it)") + "\n"
    else:
        for section in (latency_section, bandwidth_section, issue_section, departure_section):
            text += section(device) + "\n"
    text += accuracy_section(validation) + "\n"
    text += "## Best stencil and ADI variants\n\n"
    text += best_stencils(load_csv(folder, "stencils.csv")) + "\n" + best_adi(load_csv(folder, "adi.csv")) + "\n"
    text += figures_section(folder)
    return text


def write_atomically(path, text):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix="." + os.path.basename(path) + ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main():
    if len(sys.argv) != 2:
        print("usage: gpu_report.py OUTDIR   (writes OUTDIR/README.md)", file=sys.stderr)
        return 2
    folder = sys.argv[1]
    try:
        if not os.path.isdir(folder):
            raise InputError(f"{folder}: no such folder (give a results/<gpu>/ folder)")
        text = report(folder)
        write_atomically(os.path.join(folder, "README.md"), text)
    except InputError as e:
        print(f"gpu_report: {e}", file=sys.stderr)
        return 2
    print(f"gpu_report: wrote {os.path.join(folder, 'README.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
