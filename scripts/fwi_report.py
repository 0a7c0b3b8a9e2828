#!/usr/bin/env python3
"""The FWI's optimisation phases on our GPUs beside the study's GTX 970 (docs/fwi.md), from measured
JSON only: `warpmodel run-fwi --variant all -o RUN.json` (one file per size and GPU), optionally
`warpmodel profile --kernel fwi --variant all --size NXxNZ --metrics seed-003,dram__bytes_read.sum,dram__bytes_write.sum -o P`
(P.json: the DRAM bytes of each kernel, and the study's nvprof metric set) and the GPU's device.json
(the DRAM roof: its measured copy bandwidth) and, for the energy the model predicts, `warpmodel
predict-app --profile P --format json` of those profiles (--predicted; with the device's static power),
or of the same launches profiled with the model's metric set (--energy-profile, preferred for the energy).
Writes fwi.md and fwi.csv (atomically) to --out, or
prints the page. With no run JSON it says that nothing is measured yet and shows the study's column
only: no number here is typed in, each comes from the JSON named in the page.

  scripts/fwi_report.py [--run RUN.json ...] [--profile P.json ...] [--energy-profile E.json ...]
                        [--predicted PREDICTED.json ...] [--device device.json] [--out DIR]
"""
import argparse
import csv
import io
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_io import md_table, pct_error, summary, write_atomically  # noqa: E402
import report_io  # noqa: E402

PROGRAM = "fwi_report.py"


def fail(msg):
    report_io.fail(PROGRAM, msg)


def load(path):
    return report_io.load(PROGRAM, path)


# Table 28 of the study (GTX 970, the whole FWI, 300 iterations): (variant, phase, seconds, speedup,
# GPU utilisation). The same numbers are in stencils/fwi/src/gpu_variants.cpp, which run-fwi writes
# into each row of its JSON; the page takes them from there when a run is given.
STUDY = [
    ("original", "original", 49.996, 1.0, 55.5),
    ("shared", "phase 1", 46.422, 1.076, 52.5),
    ("fused", "phase 2", 36.866, 1.356, 43.5),
    ("fused-cpml", "phase 3", 23.328, 2.143, 75.5),
    ("dot-gpu", "phase 4", 23.233, 2.151, 75.2),
    ("reorganised", "reorganised", 21.198, 2.358, 82.5),
    ("gradient-on-the-fly", "phase 5", 21.200, 2.358, 82.5),
    ("read-only", "phase 6", 20.180, 2.477, 81.2),
    ("fast-math", "phase 6 + fast math", 15.150, 3.300, 44.5),
]
MEMORY_BOUND_SHARE = 0.6  # at or above this share of the DRAM roof a phase is called memory-bound


def fmt(x, digits=4):
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    return f"{x:.{digits}g}"


def dram_roof_gbs(device_path):
    """The measured DRAM copy bandwidth of a device.json (GB/s), and where it came from."""
    if not device_path:
        return None, None
    d = load(device_path)
    for pointer in (("bandwidth_gbs", "dram_copy"), ("measurements", "bandwidth", "dram_copy", "gbs")):
        v = d
        for key in pointer:
            v = v.get(key) if isinstance(v, dict) else None
        if isinstance(v, (int, float)) and v > 0:
            return float(v), f"{device_path}: {'.'.join(pointer)}"
    hw = d.get("hardware", {})
    if isinstance(hw.get("mem_peak_bandwidth_gbs"), (int, float)):
        return float(hw["mem_peak_bandwidth_gbs"]), f"{device_path}: hardware.mem_peak_bandwidth_gbs (specification)"
    fail(f"{device_path}: no DRAM bandwidth (bandwidth_gbs.dram_copy, measurements.bandwidth.dram_copy.gbs or hardware.mem_peak_bandwidth_gbs)")


def check_run(path, run):
    if run.get("schema") != "warpmodel.fwi-gpu-run/1":
        fail(f"{path}: schema is {run.get('schema')!r}, expected 'warpmodel.fwi-gpu-run/1' (warpmodel run-fwi --variant ... -o)")
    for key in ("provenance", "experiment", "variants"):
        if key not in run:
            fail(f"{path}: no '{key}'")
    for i, v in enumerate(run["variants"]):
        for key in ("variant", "inversion_seconds", "kernels", "gpu_utilisation", "device_bytes_peak"):
            if key not in v:
                fail(f"{path}: variants[{i}] has no '{key}'")


def size_of(run):
    e = run["experiment"]
    return f"{e['nx']}x{e['nz']}"


def profile_bytes(profiles):
    """{(size, variant or None, kernel): {dram bytes, metrics}} from warpmodel.profile/1 files."""
    out = {}
    for path, p in profiles:
        if p.get("schema") != "warpmodel.profile/1":
            fail(f"{path}: schema is {p.get('schema')!r}, expected 'warpmodel.profile/1' (warpmodel profile --kernel fwi)")
        m = re.search(r"size=(\d+x\d+)", p.get("workload", ""))
        if not p.get("workload", "").startswith("fwi") or not m:
            fail(f"{path}: not an fwi profile (its workload is {p.get('workload')!r})")
        size = m.group(1)
        variants = [v for v, *_ in STUDY]
        for launch in p.get("launches", []):
            label = launch.get("label", "")
            variant, kernel = None, label
            for v in variants:
                if label.startswith(v + " "):
                    variant, kernel = v, label[len(v) + 1:]
            metrics = launch.get("metrics", {})
            read, write = metrics.get("dram__bytes_read.sum"), metrics.get("dram__bytes_write.sum")
            out[(size, variant, kernel)] = {
                "dram_bytes": read + write if isinstance(read, (int, float)) and isinstance(write, (int, float)) else None,
                "derived": launch.get("derived", {}),
                "source": path,
            }
    return out


# The counts a prediction comes from: the study's metric set (no executed instructions, no data-pipe
# wavefronts: the kernel profile takes those from the SASS) or the model's.
STUDY_SET, MODEL_SET = "the study's metric set", "the model's metric set"


def predicted_dynamic_joules(predictions, profiles, static_w, energy_profiles=()):
    """{(size, variant, kernel): (J, counts)} the model's dynamic energy of one launch (E.1 less its
    static term: predict-app's energy at its predicted time, less the static power over that time) from
    predict-app JSON, each matched to the --profile or --energy-profile it names (its labels: "VARIANT
    KERNEL"); where both predict a launch, the --energy-profile's (the model's metric set) is kept."""
    kind_of = {os.path.abspath(path): (p, STUDY_SET) for path, p in profiles}
    kind_of.update({os.path.abspath(path): (p, MODEL_SET) for path, p in energy_profiles})
    out = {}
    for path, pred in predictions:
        if not isinstance(pred.get("rows"), list) or "profile" not in pred:
            fail(f"{path}: expected predict-app's JSON with rows and the profile it read (warpmodel predict-app --format json)")
        prof, counts = kind_of.get(os.path.abspath(pred["profile"]), (None, None))
        if prof is None:
            fail(f"{path}: predicts {pred['profile']}, which is not one of the --profile or --energy-profile files")
        size = re.search(r"size=(\d+x\d+)", prof.get("workload", "")).group(1)
        label_of = {l.get("launch_index"): l.get("label", "") for l in prof.get("launches", [])}
        for row in pred["rows"]:
            dynamic_j = report_io.dynamic_joules(row, static_w)
            if dynamic_j is None:
                continue
            for index in row.get("launch_indices", []):
                variant, _, kernel = label_of.get(index, "").partition(" ")
                if out.get((size, variant, kernel), (0, None))[1] == MODEL_SET and counts == STUDY_SET:
                    continue
                out[(size, variant, kernel)] = (dynamic_j, counts)
    return out


def energy_rows(size, by_name, dynamic, static_w, limit_w=None):
    """Per variant with energy measured: the measured J of one gradient evaluation and E.1 at the run's
    time (the static power over the measured seconds plus every launch's predicted dynamic energy times
    its calls; E.3's cap at the power limit times those seconds where the device profile has the limit),
    or why there is no prediction."""
    rows, errors = [], []
    for variant, phase, *_ in STUDY:
        v = by_name.get(variant)
        if not v or not v.get("energy"):
            continue
        e = v["energy"]
        joules, seconds = e["region_joules"]["mean"], e["region_seconds"]["mean"]
        missing = [k["name"] for k in v["kernels"] if (size, variant, k["name"]) not in dynamic]
        if missing:
            rows.append([phase, variant, f"{fmt(joules)} ± {fmt(e['region_joules']['half_width'], 2)}", fmt(joules / seconds),
                         "-", "-", "no prediction for " + ", ".join(missing[:3]) + (" ..." if len(missing) > 3 else "")])
            continue
        dynamic_j = sum(dynamic[(size, variant, k["name"])][0] * k["calls"] for k in v["kernels"])
        counts = sorted({dynamic[(size, variant, k["name"])][1] for k in v["kernels"]})
        predicted = report_io.energy_at(seconds, static_w, dynamic_j, limit_w)
        error = pct_error(predicted, joules)
        errors.append((error, variant))
        rows.append([phase, variant, f"{fmt(joules)} ± {fmt(e['region_joules']['half_width'], 2)}", fmt(joules / seconds),
                     fmt(predicted), f"{error:+.1f} %",
                     f"static {fmt(static_w * seconds)} J, dynamic {fmt(dynamic_j)} J; counts: {' and '.join(counts)}"])
    return rows, errors


def lookup(profile, size, variant, kernel):
    return profile.get((size, variant, kernel)) or profile.get((size, None, kernel))


def render(runs, profile, roof, roof_source, dynamic=None, static_w=None, limit_w=None):
    lines = ["# FWI: the study's optimisation phases on this project's GPUs", ""]
    lines.append("Generated by `scripts/fwi_report.py` from the measured JSON named below; the GTX 970 columns are the study's "
                 "table 28 (source document 003). Speedups are over the `original` variant on the same GPU and size.")
    lines.append("")
    csv_rows = []
    if not runs:
        lines.append("**No measurement yet.** No `warpmodel run-fwi --variant all -o RUN.json` was given, so the columns "
                     "for this project's GPUs are empty; `scripts/fwi_device_run.sh` measures them on a GPU.")
        lines.append("")
        rows = [[p, v, fmt(s, 5), f"{x:.3f}x", f"{u} %", "not measured"] for v, p, s, x, u in STUDY]
        lines.append(md_table(["phase", "variant", "GTX 970 total (s)", "GTX 970 speedup", "GTX 970 GPU use", "ours"], rows))
        return "\n".join(lines), csv_rows
    for path, run in runs:
        prov = run["provenance"]
        size = size_of(run)
        e = run["experiment"]
        lines.append(f"## {prov.get('gpu', '?')}, {size} ({e.get('nt')} steps, {len(e.get('source_columns', []))} shots), "
                     f"{run['options'].get('iterations')} iterations")
        lines.append("")
        lines.append(f"Source: `{os.path.basename(path)}` ({prov.get('date', '?')}, commit {prov.get('commit', '?')}, "
                     f"driver {prov.get('driver', '?')}): `{prov.get('command', '?')}`"
                     + (" (stopped before every variant ran: the missing rows read -)." if run.get("complete") is False else "."))
        lines.append("")
        by_name = {v["variant"]: v for v in run["variants"]}
        original = by_name.get("original")
        base = original["inversion_seconds"]["median"] if original else None
        rows = []
        for variant, phase, s_study, x_study, u_study in STUDY:
            v = by_name.get(variant)
            if not v:
                rows.append([phase, variant, fmt(s_study, 5), f"{x_study:.3f}x", f"{u_study} %", "-", "-", "-", "-", "-"])
                continue
            t = v["inversion_seconds"]["median"]
            speedup = base / t if base else None
            rows.append([phase, variant, fmt(s_study, 5), f"{x_study:.3f}x", f"{u_study} %", fmt(t), f"{speedup:.3f}x" if speedup else "-",
                         f"{100 * v['gpu_utilisation']:.1f} %", f"{v['device_bytes_peak'] / 2**20:.2f}",
                         "ok" if v.get("check", {}).get("passed") else ("FAILED" if "check" in v else "-")])
            csv_rows.append([prov.get("gpu", "?"), size, variant, phase, s_study, x_study, t, speedup if speedup else "",
                             v["gpu_utilisation"], v["device_bytes_peak"]])
        lines.append(md_table(["phase", "variant", "GTX 970 total (s)", "GTX 970 speedup", "GTX 970 GPU use",
                               "ours: s per inversion (median)", "ours: speedup", "ours: GPU use", "ours: MiB", "check"], rows))
        # Against the memory roof.
        if roof is None:
            lines.append("Against the memory roof: no device.json given (--device), so no roof to place the phases under.")
            lines.append("")
            continue
        roof_rows = []
        for variant, phase, *_ in STUDY:
            v = by_name.get(variant)
            if not v:
                continue
            kernel_s = sum(k["total_s"] for k in v["kernels"])
            dram, missing = 0.0, []
            for k in v["kernels"]:
                p = lookup(profile, size, variant, k["name"])
                if p is None or p["dram_bytes"] is None:
                    missing.append(k["name"])
                else:
                    dram += p["dram_bytes"] * k["calls"]
            if missing:
                roof_rows.append([phase, variant, fmt(kernel_s), "-", "-", "-",
                                  "no DRAM bytes for " + ", ".join(missing[:3]) + (" ..." if len(missing) > 3 else "")])
                continue
            gbs = dram / kernel_s / 1e9 if kernel_s > 0 else 0.0
            share = gbs / roof
            verdict = "memory-bound" if share >= MEMORY_BOUND_SHARE else "below the roof: latency- or launch-bound"
            roof_rows.append([phase, variant, fmt(kernel_s), fmt(dram / 1e6), fmt(gbs), f"{100 * share:.1f} %", verdict])
        lines.append(f"Against the memory roof ({fmt(roof)} GB/s, {roof_source}); DRAM bytes per launch from the profile "
                     f"(`dram__bytes_read.sum + dram__bytes_write.sum`) times the calls of one evaluation, over its kernel time:")
        lines.append("")
        lines.append(md_table(["phase", "variant", "kernel s per evaluation", "DRAM MB per evaluation", "GB/s", "of the roof",
                               "where it sits"], roof_rows))
        # The step kernels with the study's metrics.
        kernel_rows = []
        for variant, *_ in STUDY:
            v = by_name.get(variant)
            if not v:
                continue
            for k in v["kernels"]:
                if not k["name"].startswith(("Prop", "PSI", "Gradiente")):
                    continue
                p = lookup(profile, size, variant, k["name"]) or {}
                d = p.get("derived", {})
                kernel_rows.append([variant, k["name"], k["calls"], fmt(k["mean_s"] * 1e6), f"{100 * k['share']:.1f} %",
                                    fmt(d.get("achieved_occupancy")), fmt(d.get("gld_transactions")),
                                    fmt(d.get("gst_transactions")), fmt(d.get("gld_efficiency"))])
        if kernel_rows:
            lines.append("The propagation kernels (times from the run; the study's nvprof metrics from the profile, translated):")
            lines.append("")
            lines.append(md_table(["variant", "kernel", "calls per evaluation", "mean (us)", "share", "achieved_occupancy",
                                   "gld_transactions", "gst_transactions", "gld_efficiency (%)"], kernel_rows))
        if dynamic is not None:
            rows, errors = energy_rows(size, by_name, dynamic, static_w, limit_w)
            if rows:
                lines.append("Energy of one gradient evaluation (`--energy`: NVML's counter, 95 % Student-t) against the launch "
                             "energy the model predicts (docs/energy.md, E.1-E.2) at the run's time: the static power over the "
                             "measured seconds plus each launch's predicted dynamic energy times its calls. These kernels are "
                             "held out: no energy coefficient or count was chosen on them.")
                lines.append("")
                lines.append(md_table(["phase", "variant", "J per evaluation", "mean W", "predicted J", "error", "predicted"], rows))
                if errors:
                    mape, _, worst, under = summary(errors)
                    lines.append(f"MAPE {mape:.1f} % over {len(errors)} variants, {under} under-predicted; worst {worst[1]} "
                                 f"{worst[0]:+.1f} %.")
                    lines.append("")
        if "fast_math" in run:
            fm = run["fast_math"]
            lines.append(f"Fast math: the final model's L2 norm {fmt(fm['final_norm_fast_math'], 7)} against "
                         f"{fmt(fm['final_norm_read_only'], 7)} without it ("
                         + (f"{100 * fm['relative_difference']:.4f} %" if fm.get("relative_difference") is not None
                            else "no difference: a norm is not finite")  # JSON null: NaN or inf
                         + "); "
                         "the study's table 27: 1.7746e4 against 1.7751e4.")
            lines.append("")
    return "\n".join(lines), csv_rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", action="append", default=[], help="warpmodel run-fwi --variant ... -o output (repeatable)")
    ap.add_argument("--profile", action="append", default=[], help="warpmodel profile --kernel fwi ... JSON (repeatable)")
    ap.add_argument("--energy-profile", action="append", default=[],
                    help="warpmodel profile --kernel fwi ... --metrics model JSON (repeatable): launches whose predictions "
                         "(--predicted) take the place of the --profile ones for the energy")
    ap.add_argument("--predicted", action="append", default=[],
                    help="warpmodel predict-app --profile P --format json of a --profile or --energy-profile (repeatable): "
                         "the energy the model predicts")
    ap.add_argument("--device", help="device.json of the GPU the runs come from (the DRAM roof, the static power)")
    ap.add_argument("--out", help="folder for fwi.md and fwi.csv (default: print the page)")
    a = ap.parse_args()
    runs = [(p, load(p)) for p in a.run]
    for p, r in runs:
        check_run(p, r)
    profiles = [(p, load(p)) for p in a.profile]
    profile = profile_bytes(profiles)
    roof, roof_source = dram_roof_gbs(a.device)
    dynamic = static_w = limit_w = None
    if a.predicted:
        if not a.device:
            fail("--predicted needs --device (the static power of E.1)")
        device = load(a.device)
        static_w = report_io.static_watts(PROGRAM, a.device, device)
        limit_w = report_io.power_limit_watts(device)
        dynamic = predicted_dynamic_joules([(p, load(p)) for p in a.predicted], profiles, static_w,
                                           [(p, load(p)) for p in a.energy_profile])
    page, rows = render(runs, profile, roof, roof_source, dynamic, static_w, limit_w)
    if not a.out:
        print(page, end="")
        return
    write_atomically(os.path.join(a.out, "fwi.md"), page)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["gpu", "size", "variant", "phase", "study_seconds", "study_speedup", "seconds_median", "speedup",
                "gpu_utilisation", "device_bytes_peak"])
    w.writerows(rows)
    write_atomically(os.path.join(a.out, "fwi.csv"), buf.getvalue())


if __name__ == "__main__":
    main()
