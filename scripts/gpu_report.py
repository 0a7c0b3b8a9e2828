#!/usr/bin/env python3
"""One-page report of a characterised GPU: FOLDER/README.md, from the files in FOLDER.

  gpu_report.py results/h100-80gb-hbm3

Called by the `report` stage of scripts/characterize_gpu.sh and by scripts/regenerate_results.sh (for
every results/<gpu>/ with a device.json, so that the committed READMEs are what this script writes).
The page, in this order, and the files each part reads:
  the GPU's name and what the page is      provenance.json (outputs["device.json"].gpu), else device.json
  At a glance       device.json: SMs, SM clock, compute capability, memory, cache sizes and latencies;
                    the measured FP32/FP64 FLOP/s (FMA ops/clk/SM x SMs x SM clock x 2), SFU ops/s and
                    bandwidths against spec; then roofline.png (scripts/plot_roofline.py)
  latency by level, bandwidth, issue rates, departure delays, barrier and launch    device.json
  tensor cores, TMA and clusters    device.json (the tensor stage's sections; "not measured" without them)
  model accuracy    validation.json (held-out summaries, leave-one-class-out, cross-GPU, cross-shape)
  best variants     stencils.csv, adi.csv
  figures           every *.png of the folder and its subfolders, embedded, with a caption
  provenance and run history    provenance.json (scripts/provenance_index.py): the device profile's
                    record, and the last RUNS_SHOWN measuring runs
An optional file that is missing costs one short line where its part would be. The output depends only
on the folder's files (no clock, no absolute path): the same folder gives the same bytes.
Bad input (no such folder, malformed JSON or CSV, a provenance.json of another schema): one line on
stderr, exit 2, nothing written.
"""
import csv
import json
import math
import os
import re
import sys
import tempfile

PROVENANCE_SCHEMA = "warpmodel.provenance/1"
RUNS_SHOWN = 5
FLOP_PER_FMA = 2
# (short title, one-line caption) of the figures the project's scripts draw; any other PNG gets its name.
CAPTIONS = {
    "roofline.png": ("roofline", "the roofline of the measured ceilings: FP32 and FP64 FMA roofs (spec dashed), "
                     "DRAM, L2 and shared-memory bandwidth roofs (scripts/plot_roofline.py)"),
    "app-example/roofline.png": ("the example application on the roofline", "FLOPs per DRAM byte and FLOP/s of "
                                 "each launch from its counters, coloured by predict-app's bound (warpmodel roofline)"),
    "adi_steps.png": ("ADI steps", "ADI step of every variant against the grid's cells, and the state-only traffic "
                      "against its target (scripts/plot_adi.py)"),
    "ubench_latency_vs_warps.png": ("latency against warps", "per-operation latency against warps per block, as "
                                    "thesis figures 4.3-4.14 (scripts/plot_ubench.py)"),
    "ubench_memory_vs_warps.png": ("memory latency against warps", "shared, L1, L2 and DRAM latency and the departure "
                                   "completion time against warps (scripts/plot_ubench.py)"),
    "ubench_footprint.png": ("latency against footprint", "pointer-chase latency against footprint, ld.global.ca and "
                             ".cg: the L1, L2 and DRAM plateaus (scripts/plot_ubench.py)"),
    "validation_scatter.png": ("predicted against measured", "predicted against measured cycles of every validation "
                               "launch, per model (scripts/plot_validation.py)"),
    "validation_errors.png": ("held-out errors", "signed error of each model on the held-out half "
                              "(scripts/plot_validation.py)"),
    "validation_warps.png": ("cycles against warps", "stencil cycles against warps per SM, measured and predicted: "
                             "the thesis's figure 4.15 layout (scripts/plot_validation.py)"),
    "validation_classes.png": ("accuracy per class", "hopper per kernel class, constants that never saw the class: "
                               "leave-one-class-out and cross-GPU (scripts/plot_validation.py)"),
    "external/accuracy.png": ("the external set", "public applications' launches, predicted against measured per "
                              "half and coloured by bound, and the error against the measured time "
                              "(scripts/plot_validation.py)"),
    "wavefield.png": ("wavefield", "slices of the acoustic propagator's pressure field from run-stencil snapshots "
                      "(scripts/plot_wavefield.py)"),
}
MISSING = "_No {file} in this folder{hint}._\n"


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


def load_provenance(folder):
    doc = load_json(folder, "provenance.json")
    if doc is None:
        return None
    path = os.path.join(folder, "provenance.json")
    if not isinstance(doc, dict) or doc.get("schema") != PROVENANCE_SCHEMA or not isinstance(doc.get("outputs"), dict):
        raise InputError(f"{path}: expected a {PROVENANCE_SCHEMA} document with \"outputs\"")
    runs = doc.get("runs", [])
    if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs) or \
            not all(isinstance(r, dict) for r in doc["outputs"].values()):
        raise InputError(f"{path}: \"outputs\" must map files to records and \"runs\" be a list of runs")
    return doc


def num(x, digits=4):
    """`digits` significant digits, thousands not separated, trailing zeros trimmed; "-" for none."""
    if x is None or x == "" or isinstance(x, bool) or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    x = float(x)
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(x)))))
    text = f"{x:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def pct(fraction, digits=3):
    return "-" if fraction is None else num(100 * float(fraction), digits) + " %"


def si(value, unit, digits=3):
    """65.59e12, "FLOP/s" -> "65.6 TFLOP/s"."""
    if value is None:
        return "-"
    scale, prefix = next(((s, p) for s, p in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))
                          if abs(value) >= s), (1, ""))
    x = value / scale
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(x))))) if x else 0
    return f"{x:.{decimals}f} {prefix}{unit}"


def size(nbytes):
    """Bytes as KiB, MiB or GiB."""
    for scale, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if nbytes >= scale:
            return f"{num(nbytes / scale, 4)} {unit}"
    return f"{num(nbytes)} B"


def number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


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


def short_commit(commit):
    """The first 7 digits of a hash, with what follows it ("+dirty")."""
    m = re.match(r"([0-9a-f]{7,40})(.*)$", str(commit or ""))
    return m.group(1)[:7] + m.group(2) if m else (str(commit) if commit else "-")


# --- at a glance --------------------------------------------------------------------------------

def footprint_sizes(curve):
    """(L1 bytes, L2 bytes) from the pointer-chase footprint curve, where it shows the plateaus: the
    largest footprint whose latency stays below the midpoint of two adjacent plateaus (the .ca curve
    for L1, the .cg curve for L2), as `warpmodel characterize` detects them."""
    if not isinstance(curve, list):
        return None, None
    points = []
    for p in curve:
        if isinstance(p, dict) and number(p.get("footprint_bytes")):
            points.append((p["footprint_bytes"], get(p, "ca.mean_cycles"), get(p, "cg.mean_cycles")))
    points.sort(key=lambda p: p[0])
    if len(points) < 4:
        return None, None

    def capacity(column, low, high):
        if not (number(low) and number(high)) or high < 1.5 * low:
            return None  # no step between the two plateaus
        below = [p[0] for p in points if number(p[column]) and p[column] < (low + high) / 2]
        return below[-1] if below and below[-1] < points[-1][0] else None

    l1, l2, dram = points[0][1], points[0][2], points[-1][2]
    return capacity(1, l1, l2), capacity(2, l2, dram)


def compute_rate(device, key):
    """(measured, spec) ops/s of a throughput benchmark over the whole GPU: ops/clk/SM x SMs x SM clock."""
    entry = get(device, f"measurements.throughput.{key}")
    sms, clock = get(device, "hardware.sm_count"), get(device, "hardware.sm_clock_mhz")
    if not isinstance(entry, dict) or not number(entry.get("ops_per_clk_per_sm")) or not number(sms) \
            or not number(clock):
        return None, None
    per_clk = sms * clock * 1e6
    spec = entry.get("spec_ops_per_clk_per_sm")
    return entry["ops_per_clk_per_sm"] * per_clk, spec * per_clk if number(spec) else None


def glance_section(device, folder):
    out = "## At a glance\n\n"
    hw = device.get("hardware", {}) if isinstance(device.get("hardware"), dict) else {}
    lat = device.get("latency_cycles", {}) if isinstance(device.get("latency_cycles"), dict) else {}
    cap = get(device, "measurements.capacity", {}) or {}
    clock = hw.get("sm_clock_mhz")

    def latency(cycles):
        if not number(cycles):
            return ["-", "-"]
        return [num(cycles), num(cycles / clock * 1000) if number(clock) and clock > 0 else "-"]

    clock_source = get(device, "provenance.sm_clock_mhz")
    l1_curve, l2_curve = footprint_sizes(get(device, "measurements.footprint_curve"))
    l1_bytes = cap.get("l1_bytes_detected") if number(cap.get("l1_bytes_detected")) else l1_curve
    l2_bytes = cap.get("l2_bytes_detected") if number(cap.get("l2_bytes_detected")) else l2_curve
    l2_runtime = cap.get("l2_bytes_runtime")
    shared_max = get(device, "measurements.launch.one_block_per_sm_shared_bytes")
    carveout = " (L1 carveout 0 %)" if "= 0 %" in str(cap.get("l1_carveout", "")) else ""

    rows = [["SMs", num(hw.get("sm_count")), "", ""],
            ["SM clock", (num(clock) + " MHz" if number(clock) else "-")
             + (f" ({clock_source})" if isinstance(clock_source, str) and clock_source else ""), "", ""],
            ["compute capability", hw.get("compute_capability", "-"), "", ""],
            ["shared memory", f"{size(shared_max)} per block at most (opt-in)" if number(shared_max) else "-"]
            + latency(lat.get("shared_load")),
            ["L1", f"{size(l1_bytes)} per SM, footprint plateau{carveout}" if number(l1_bytes) else "-"]
            + latency(lat.get("l1_hit")),
            ["L2", "; ".join(([f"{size(l2_bytes)} by the footprint plateau"] if number(l2_bytes) else [])
                             + ([f"{size(l2_runtime)} per the runtime"] if number(l2_runtime) else [])) or "-"]
            + latency(lat.get("l2_hit")),
            ["DRAM", (f"peak {num(hw['mem_peak_bandwidth_gbs'])} GB/s (2 x memory clock x bus width)"
                      if number(hw.get("mem_peak_bandwidth_gbs")) else "-")] + latency(lat.get("dram"))]
    out += table(["", "value", "latency, cycles", "latency, ns"], rows)

    rows = []
    for key, label, unit, flops in (("fp32_fma", "FP32 (FFMA)", "FLOP/s", FLOP_PER_FMA),
                                    ("fp64_fma", "FP64 (DFMA)", "FLOP/s", FLOP_PER_FMA),
                                    ("sfu_rcp", "SFU (MUFU.RCP)", "ops/s", 1)):
        measured, spec = compute_rate(device, key)
        if measured is not None:
            rows.append([label, si(measured * flops, unit), si(spec * flops, unit) if spec else "-",
                         pct(measured / spec) if spec else "-"])
    bandwidth = get(device, "measurements.bandwidth", {}) or {}
    for key, label in (("dram_read", "DRAM read"), ("dram_write", "DRAM write"), ("dram_copy", "DRAM copy"),
                       ("l2_read", "L2 read"), ("l2_write", "L2 write"), ("shared_read", "shared memory read")):
        entry = bandwidth.get(key)
        if isinstance(entry, dict) and number(entry.get("gbs")):
            spec = entry.get("spec_gbs")
            rows.append([label, f"{num(entry['gbs'])} GB/s", f"{num(spec)} GB/s" if number(spec) else "none published",
                         pct(entry.get("fraction_of_spec")) if number(entry.get("fraction_of_spec")) else "-"])
    if rows:
        out += "\n" + table(["", "measured", "spec", "of spec"], rows)
        out += (f"\nFLOP/s: FMA ops per clock per SM measured with 32 warps on every SM (device.json "
                f"`measurements.throughput`) x {num(hw.get('sm_count'))} SMs x {num(clock)} MHz x {FLOP_PER_FMA} "
                "FLOP per FMA (SFU: ops, one each); the spec is the same product with the architecture's ops per "
                "clock. Bandwidth: "
                "the whole GPU, CUDA events (`measurements.bandwidth`). Latency: one warp, dependent loads.\n")
    if os.path.exists(os.path.join(folder, "roofline.png")):
        out += "\n![roofline](roofline.png)\n"
    else:
        out += "\n" + MISSING.format(file="roofline.png", hint=" (`scripts/plot_roofline.py device.json` draws it)")
    return out


# --- the measurements in detail -----------------------------------------------------------------

def latency_section(device):
    lat = device.get("latency_cycles", {}) if isinstance(device.get("latency_cycles"), dict) else {}
    clock = get(device, "hardware.sm_clock_mhz")
    levels = [("L1 hit", lat.get("l1_hit")), ("shared load", lat.get("shared_load")),
              ("L2 hit (4 MiB chase)", lat.get("l2_hit")),
              ("L2 near", get(device, "measurements.l2_near_far.near_cycles.mean")),
              ("L2 far", get(device, "measurements.l2_near_far.far_cycles.mean")),
              ("DRAM", lat.get("dram")), ("FP (avg_inst_lat: fp32 division)", lat.get("fp")),
              ("SFU", lat.get("sfu")), ("local load", get(device, "measurements.latency.local_load.warps_1.mean_cycles")),
              ("global atomic", get(device, "measurements.latency.global_atomic.warps_1.mean_cycles"))]
    rows = [(name, num(c), num(c / clock * 1000) if number(clock) and clock > 0 else "-")
            for name, c in levels if number(c)]
    if not rows:
        return ""
    return ("## Latency by level\n\nOne warp, dependent loads or operations (device.json `latency_cycles`; "
            "L2 near/far from `measurements.l2_near_far`); ns at the profile's SM clock.\n\n"
            + table(["level", "cycles", "ns"], rows))


MAIN_BANDWIDTHS = ("dram_read", "dram_write", "dram_copy", "l2_read", "l2_write", "shared_read")


def bandwidth_section(device):
    measured = get(device, "measurements.bandwidth", {}) or {}
    short = device.get("bandwidth_gbs", {}) if isinstance(device.get("bandwidth_gbs"), dict) else {}
    sms, clock = get(device, "hardware.sm_count"), get(device, "hardware.sm_clock_mhz")
    natural = lambda k: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", k)]  # rows_32b before rows_128b
    keys = list(MAIN_BANDWIDTHS) + sorted((k for k in set(measured) | set(short) if k not in MAIN_BANDWIDTHS),
                                          key=natural)
    rows = []
    for key in keys:
        entry = measured.get(key) if isinstance(measured.get(key), dict) else {}
        gbs = entry.get("gbs", short.get(key))
        if not number(gbs):
            continue
        per_clk_sm = gbs * 1e9 / (sms * clock * 1e6) if number(sms) and number(clock) and sms * clock > 0 else None
        u = f" ± {num(entry['u_gbs'], 2)}" if number(entry.get("u_gbs")) else ""
        rows.append((key, num(gbs) + u, num(per_clk_sm), num(entry.get("spec_gbs")), pct(entry.get("fraction_of_spec"))))
    if not rows:
        return ""
    return ("## Bandwidth\n\nWhole GPU, CUDA events (device.json `measurements.bandwidth`); spec: the runtime's "
            "peak (2 x memory clock x bus width) for DRAM, 128 B/clk/SM for shared memory, none published for L2.\n\n"
            + table(["", "GB/s", "bytes/clk/SM", "spec GB/s", "of spec"], rows))


def issue_section(device):
    throughput = get(device, "measurements.throughput", {}) or {}
    rows = []
    for name in sorted(throughput):
        entry = throughput[name]
        if not isinstance(entry, dict):
            continue
        for key, unit in (("ops_per_clk_per_sm", "ops/clk/SM"), ("requests_per_clk_per_sm", "requests/clk/SM"),
                          ("ops_per_clk", "ops/clk (whole GPU)")):
            if number(entry.get(key)):
                rows.append((name, num(entry[key]), unit, num(entry.get("spec_" + key)),
                             pct(entry.get("fraction_of_spec")), num(entry.get("sectors_per_clk_per_sm"))))
                break
    if not rows:
        return ""
    return ("## Issue rates and LSU throughput\n\n32 warps per SM, one block per SM on every SM (device.json "
            "`measurements.throughput`).\n\n"
            + table(["benchmark", "rate", "unit", "spec", "of spec", "sectors/clk/SM"], rows))


# --- the tensor stage: tensor cores, TMA, clusters, async copies, library GEMM --------------------

TENSOR_OPS = ("mma_sync", "mma_sp", "wgmma", "wgmma_sp")
TENSOR_TYPES = ("f16", "bf16", "tf32", "e4m3", "e5m2", "s8")
NOT_MEASURED = "not measured"


def measured(entry, key, digits=4):
    """An entry's number, "n/a" for a field without a value, "not measured" for none."""
    if not isinstance(entry, dict) or key not in entry:
        return NOT_MEASURED
    return num(entry[key], digits) if number(entry[key]) else "n/a"


def tensor_section(device):
    head = "## Tensor cores, TMA and clusters\n\n"
    meas = get(device, "measurements", {}) or {}
    if not isinstance(meas.get("tensor_cores"), dict):
        return head + ("Not measured: this device.json has no tensor stage (`warpmodel characterize --only tensor`, "
                       "the `tensor` stage of scripts/characterize_gpu.sh, adds it; docs/microbenchmarks.md).\n")
    units = meas["tensor_cores"]
    rows = []
    for op in TENSOR_OPS:
        for t in TENSOR_TYPES:
            e = get(units, f"{op}.{t}")
            if not isinstance(e, dict) and op == "mma_sp" and t in ("e4m3", "e5m2"):
                continue  # no row: an FP8 mma.sp is shuffles around HMMA.SP on sm_90 (ubench/tensor.def)
            per_clk = get(e, "ops_per_clk_per_sm") if isinstance(e, dict) else None
            spec_clk = get(e, "spec_ops_per_clk_per_sm") if isinstance(e, dict) else None
            clock_fraction = per_clk / spec_clk if number(per_clk) and number(spec_clk) and spec_clk else None
            rows.append((op, t, measured(e, "latency_cycles"), measured(e, "ops_per_clk_per_sm"), measured(e, "spec_ops_per_clk_per_sm"),
                         pct(clock_fraction) if clock_fraction is not None else "-",
                         measured(e, "tera_ops_per_s"), measured(e, "spec_tera_ops_per_s"),
                         pct(e.get("fraction_of_spec")) if isinstance(e, dict) and number(e.get("fraction_of_spec")) else "-",
                         e.get("sass", "-") if isinstance(e, dict) else "-"))
    text = head + ("One warp (mma) or warpgroup (wgmma) for the latency; one block per SM on every SM for the rates: "
                   "ops per clock per SM (%clock64) and tera-ops per second of the whole GPU (CUDA events) against "
                   "the spec sheet (dense: half the sheet's sparse figure); ops = 2 x M x N x K "
                   "(device.json `measurements.tensor_cores`, tensor.md).\n\n"
                   + table(["op", "type", "latency [cycles]", "ops/clk/SM", "spec/clk/SM", "of spec (clock)", "Tops/s",
                            "spec Tops/s", "of spec", "SASS"], rows))
    lib = get(meas, "library_gemm.cublaslt_f16")
    if isinstance(lib, dict) and number(lib.get("tera_ops_per_s")):
        text += (f"\ncuBLASLt FP16 GEMM (FP32 accumulate), best of m = n = k in 4096-16384: "
                 f"{num(lib['tera_ops_per_s'])} Tops/s ({pct(lib.get('fraction_of_spec'))} of spec at size "
                 f"{num(lib.get('best_size'))}); wgmma FP16 over it: {num(lib.get('wgmma_f16_ratio'), 3)}.\n")
    else:
        text += "\ncuBLASLt FP16 GEMM: " + (str(lib.get("not_measured")) if isinstance(lib, dict) and lib.get("not_measured") else NOT_MEASURED) + ".\n"
    copies = []
    for section, names in (("tma", ("load_1d", "load_2d", "store_1d", "store_2d")), ("async_copy", ("cp_async", "bulk_load"))):
        for n in names:
            e = get(meas, f"{section}.{n}")
            copies.append((f"{section}.{n}", measured(e, "latency_cycles"), measured(e, "bytes_per_clk_per_sm"),
                           measured(e, "gbs"), pct(e.get("fraction_of_spec")) if isinstance(e, dict) and number(e.get("fraction_of_spec")) else "-"))
    text += ("\nCopies: latency of one copy (L2-resident source); bandwidth streaming 1 GiB, one block per SM "
             "(against the DRAM peak).\n\n" + table(["copy", "latency [cycles]", "bytes/clk/SM", "GB/s", "of DRAM spec"], copies))
    clusters = []
    for c in (2, 4, 8, 16):
        key = f"cluster_{c}"
        clusters.append((c, measured(get(meas, f"cluster.dsmem_load.{key}"), "latency_cycles"),
                         measured(get(meas, f"cluster.dsmem_read.{key}"), "bytes_per_clk_per_sm"),
                         measured(get(meas, f"cluster.barrier.{key}"), "latency_cycles"),
                         measured(get(meas, f"cluster.barrier_relaxed.{key}"), "latency_cycles"),
                         measured(get(meas, f"cluster.barrier_32_warps.{key}"), "latency_cycles")))
    text += ("\nClusters: a chase through the next block's shared memory, 16-B reads of it, and barrier.cluster "
             "arrive + wait (release/acquire, and relaxed).\n\n"
             + table(["blocks per cluster", "DSMEM load [cycles]", "DSMEM read [B/clk/SM]", "barrier [cycles]",
                      "relaxed [cycles]", "barrier, 32 warps [cycles]"], clusters))
    occupancy = get(meas, "cluster.max_active_clusters")
    if isinstance(occupancy, dict) and occupancy:
        counts = sorted((int(k.split("_")[1]), v) for k, v in occupancy.items() if k.startswith("cluster_"))
        text += ("\nClusters resident at once with one block per SM, by blocks per cluster: "
                 + ", ".join(f"{c}: {v}" for c, v in counts)
                 + " (`measurements.cluster.max_active_clusters`; the model reads the GPC layout they imply, H.18a).\n")
    return text


def energy_section(device):
    """Energy per operation (characterize's energy stage) and links to the run commands' energy pages."""
    head = "## Energy per operation\n\n"
    coefficients = get(device, "measurements.energy.coefficients")
    if not isinstance(coefficients, dict):
        return head + ("Not measured: this device.json has no energy stage (`warpmodel characterize --only energy`; "
                       "docs/energy.md).\n")
    rows = [(name, num(coefficients[key]) if number(coefficients.get(key)) else NOT_MEASURED, unit)
            for key, name, unit in (("static_w", "static power (no kernel running)", "W"),
                                    ("pj_per_fp32_op", "FP32 operation", "pJ"), ("pj_per_fp64_op", "FP64 operation", "pJ"),
                                    ("pj_per_int32_op", "32-bit integer operation", "pJ"),
                                    ("pj_per_shared_byte", "shared-memory byte", "pJ"), ("pj_per_l2_byte", "L2 byte", "pJ"),
                                    ("pj_per_dram_byte", "DRAM byte (beyond its L2 byte)", "pJ"))]
    return head + ("NVML's total-energy counter around the throughput and bandwidth kernels, energy above the static "
                   "power per unit (device.json `measurements.energy`, energy-per-op.md); `predict` and `predict-app` "
                   "price a launch with them (docs/energy.md).\n\n" + table(["per", "energy", "unit"], rows))


def departure_section(device):
    lat = device.get("latency_cycles", {}) if isinstance(device.get("latency_cycles"), dict) else {}
    dep = get(device, "measurements.departure_delay", {}) or {}
    rows = []
    for kind in ("coalesced", "uncoalesced"):
        direct = lat.get(f"departure_delay_{kind}")
        u = get(dep, f"departure_{kind}.u_cycles")
        if number(direct):
            rows.append((f"departure delay, {kind} (direct: completion-time slope)",
                         num(direct) + (f" ± {num(u, 2)}" if number(u) else ""), "cycles"))
        if number(dep.get(f"thesis_eq_4_25_{kind}")):
            rows.append((f"departure delay, {kind} (thesis eq 4.25)", num(dep[f"thesis_eq_4_25_{kind}"]), "cycles"))
    barrier = get(device, "measurements.barrier.cycles_32_warps")
    if number(barrier):
        rows.append(("barrier (bar.sync), 32 warps", num(barrier), "cycles"))
    launch = get(device, "measurements.launch", {}) or {}
    for key, label, unit in (("empty_kernel_us", "empty kernel, single launch (median)", "us"),
                             ("back_to_back_us", "empty kernel, back to back", "us"),
                             ("block_dispatch_cycles", "block dispatch, per block per SM", "cycles"),
                             ("wave_cycles", "one wave of one block per SM", "cycles")):
        if number(launch.get(key)):
            rows.append((label, num(launch[key]), unit))
    if not rows:
        return ""
    return "## Departure delays, barrier, launch\n\n" + table(["", "value", "unit"], rows)


# --- model accuracy and the benchmarks' best variants ----------------------------------------------

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
        nx = int(r.get("nx") or r["n"])  # older adi.csv: one "n" column (square grids)
        key = ((nx, int(r.get("ny") or nx)), r["precision"])
        if key not in best or float(r["median_us"]) < float(best[key]["median_us"]):
            best[key] = r
    if not best:
        return out + "_adi.csv has no whole-step rows._\n"
    out += "Fastest variant of a whole ADI step per size and precision (median us; fraction of the copy bandwidth):\n\n"
    table_rows = [(f"{n[0]}^2" if n[0] == n[1] else f"{n[0]} x {n[1]}", precision, r["variant"], num(r["median_us"]), num(r.get("effective_gbs")),
                   num(r.get("fraction_of_copy"), 3)) for (n, precision), r in sorted(best.items())]
    return out + table(["size", "precision", "variant", "us per step", "effective GB/s", "of copy"], table_rows)


# --- figures and provenance ---------------------------------------------------------------------

def figure_files(folder):
    """Every PNG of the folder and its subfolders, as sorted relative paths with / separators."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if name.endswith(".png") and not name.startswith("."):
                found.append(os.path.relpath(os.path.join(root, name), folder).replace(os.sep, "/"))
    return sorted(found)


def figures_section(folder):
    out = "## Figures\n\n"
    pngs = figure_files(folder)
    if not pngs:
        return out + "_No figures (*.png) in this folder._\n"
    parts = []
    for rel in pngs:
        title, caption = CAPTIONS.get(rel, (os.path.splitext(os.path.basename(rel))[0], None))
        parts.append(f"**{rel}**" + (f": {caption}" if caption else "") + f"\n\n![{title}]({rel})\n")
    return out + "\n".join(parts)


def stage_summary(stages):
    if not isinstance(stages, dict) or not stages:
        return "-"
    parts = []
    for name, s in stages.items():
        s = s if isinstance(s, dict) else {"status": s}
        status = s.get("status")
        state = ("ok" if status == 0 else f"FAILED (exit {status})" if isinstance(status, int) and not isinstance(status, bool)
                 else str(status))
        seconds = f" {num(s['seconds'])} s" if number(s.get("seconds")) else ""
        parts.append(f"{name} {state}{seconds}")
    return ", ".join(parts)


def provenance_section(provenance, device):
    out = "## Provenance and run history\n\n"
    if provenance is None:
        return out + MISSING.format(file="provenance.json", hint=" (`scripts/provenance_index.py index results` writes it)")
    rec = provenance["outputs"].get("device.json")
    if isinstance(rec, dict):
        clock = rec.get("sm_clock_mhz")
        clock_text = (f"{num(clock)} MHz" if number(clock) else "-") + \
            (f" ({rec['sm_clock_source']})" if rec.get("sm_clock_source") else "")
        rows = [("GPU", rec.get("gpu") or "-"), ("UUID", rec.get("gpu_uuid") or "not recorded"),
                ("driver", rec.get("driver") or "-"), ("CUDA", rec.get("cuda") or "-"), ("SM clock", clock_text),
                ("date", rec.get("date") or "-"), ("commit", rec.get("commit") or "-"),
                ("command", f"`{rec['command']}`" if rec.get("command") else "-")]
        out += "The device profile, device.json (provenance.json `outputs[\"device.json\"]`):\n\n"
        out += table(["", "device.json"], rows)
    elif device is not None:
        out += "provenance.json has no record of device.json.\n"
    out += ("\nEvery other output's record (measured or derived, the GPU, date, commit and command; a derived "
            "file's inputs and the command that derived it): [provenance.json](provenance.json).\n")
    runs, seen = [], set()
    for run in provenance.get("runs", []):
        key = json.dumps(run, sort_keys=True)
        if key not in seen:  # a run recorded twice is shown once
            seen.add(key)
            runs.append(run)
    runs.sort(key=lambda r: str(r.get("date") or ""))
    if runs:
        shown = runs[-RUNS_SHOWN:]
        out += (f"\nThe last {len(shown)} of the {len(runs)} measuring runs provenance.json keeps (`runs`; "
                "stages with their exit status and seconds):\n\n")
        out += table(["date", "commit", "GPU UUID", "stages"],
                     [(r.get("date") or "-", short_commit(r.get("commit")), r.get("gpu_uuid") or "-",
                       stage_summary(r.get("stages"))) for r in shown])
    return out


def report(folder):
    device = load_json(folder, "device.json")
    if device is not None and not isinstance(device, dict):
        raise InputError(f"{os.path.join(folder, 'device.json')}: expected a JSON object (a device profile)")
    provenance = load_provenance(folder)
    validation = load_json(folder, "validation.json")
    if validation is not None and not isinstance(validation, dict):
        raise InputError(f"{os.path.join(folder, 'validation.json')}: expected a JSON object")
    record = (provenance or {}).get("outputs", {}).get("device.json") or {}
    name = (record.get("gpu") or get(device, "provenance.gpu") or (device or {}).get("name")
            or os.path.basename(os.path.normpath(folder)))
    text = f"# {name}\n\n"
    text += ("What this GPU measured (latencies, bandwidths, issue rates), how well the model predicts it, its "
             "benchmarks' best variants and where every number came from, generated from the files in this "
             "folder by `scripts/gpu_report.py`: do not edit by hand.\n\n")
    if device is None:
        text += "## At a glance\n\n" + MISSING.format(file="device.json", hint=" (`warpmodel characterize` writes it)")
        text += "\n"
    else:
        text += glance_section(device, folder) + "\n"
        for section in (latency_section, bandwidth_section, issue_section, departure_section, tensor_section,
                        energy_section):
            part = section(device)
            if part:
                text += part + "\n"
    try:
        text += accuracy_section(validation) + "\n"
        text += "## Best stencil and ADI variants\n\n"
        text += best_stencils(load_csv(folder, "stencils.csv")) + "\n"
        text += best_adi(load_csv(folder, "adi.csv")) + "\n"
    except (KeyError, ValueError, TypeError, AttributeError) as e:
        raise InputError(f"{folder}: validation.json, stencils.csv or adi.csv is malformed ({type(e).__name__}: {e})") from e
    text += figures_section(folder) + "\n"
    text += provenance_section(provenance, device)
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
        print("usage: gpu_report.py FOLDER   (writes FOLDER/README.md)", file=sys.stderr)
        return 2
    folder = sys.argv[1]
    try:
        if not os.path.isdir(folder):
            raise InputError(f"{folder}: no such folder (give a results/<gpu>/ folder)")
        text = report(folder)
        write_atomically(os.path.join(folder, "README.md"), text)
    except InputError as e:
        print(f"gpu_report: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    print(f"gpu_report: wrote {os.path.join(folder, 'README.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
