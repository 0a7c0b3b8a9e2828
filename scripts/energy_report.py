#!/usr/bin/env python3
"""The stencil variants' energy (docs/energy.md) beside seed 004's gains on the K20m, from measured JSON
only: `warpmodel run-stencil --variant V --order O --energy -o V-O.json` for the five variants and the
orders run. Writes energy.md and energy.csv (atomically) to --out, or prints the page. With no run it
says that nothing is measured yet and shows seed 004's gains only.

  scripts/energy_report.py [--run RUN.json ...] [--profile PROFILE.json --predicted PREDICT.json
                           [--device DEVICE.json]] [--out DIR]

With --profile (`warpmodel profile --kernel stencil` of the same launches: variants, orders, size and
block of the runs) and --predicted (`warpmodel predict-app --format json` of that profile), each row
also gets the launch energy the model predicts from the launch's counters (E.1-E.2, docs/energy.md)
and its error against the counter's J per step: the energy coefficients come from characterize's
microbenchmarks, so the stencils are held out from them. With --device (the device.json predict-app
read), each prediction is priced again at the run's own time per step (the static power over the
measured time): the error left is the coefficients', without the time model's.

Seed 004 (Pavan et al., K20m, a 13-point stencil, NVML, 30 runs, 95 % Student-t intervals): the
energy efficiency (performance over average power) of int.z.reg over each base version. Its
versions map onto this project's variants as naive -> naive, shared -> shared, read-only ->
readonly, int.z.reg -> intz-reg (which keeps its z queue in registers and loads through TMA or
cp.async; the paper's int.z.reg was built on each base version in turn, ours is one kernel).
"""
import argparse
import csv
import io
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_io import md_table, pct_error, summary, write_atomically  # noqa: E402
import report_io  # noqa: E402

PROGRAM = "energy_report.py"


def fail(msg):
    report_io.fail(PROGRAM, msg)


def load(path):
    return report_io.load(PROGRAM, path)


# Seed 004, sections 5.1-5.3: energy-efficiency gains of int.z.reg, percent (performance gains in brackets).
SEED_GAINS = [("naive", 34.30, 34.31), ("shared", 54.11, 54.46), ("readonly", 44.53, 44.65)]
VARIANTS = ["naive", "readonly", "shared", "intz", "intz-reg"]


def pm(i, digits=4):
    return f"{i['mean']:.{digits}g} ± {i['half_width']:.2g}"


def check(path, run):
    if run.get("schema") != "warpmodel.stencil-run/1":
        fail(f"{path}: schema is {run.get('schema')!r}, expected 'warpmodel.stencil-run/1' (warpmodel run-stencil ... -o)")
    if "energy" not in run:
        fail(f"{path}: no 'energy' (run-stencil was run without --energy)")
    for key in ("joules_per_step", "points_per_joule", "efficiency_points_per_s_per_w", "mean_watts_counter", "idle_w"):
        if key not in run["energy"]:
            fail(f"{path}: energy has no '{key}'")
    if run.get("variant") not in VARIANTS:
        fail(f"{path}: variant {run.get('variant')!r} is not one of {', '.join(VARIANTS)}")


def provenance_cells(run):
    """A row's own measurement: its run's GPU, driver, CUDA, SM clock, date, commit and command (each row is
    a run of its own, so the table carries them per row rather than one record for the file)."""
    p = run.get("provenance", {})
    clock = p.get("sm_clock_mhz")
    return [p.get("gpu", ""), p.get("driver", ""), p.get("cuda", ""), "not recorded" if clock is None else clock,
            p.get("date", ""), p.get("commit", ""), p.get("command", "")]


def gain(a, b):
    """a over b - 1, percent, with the range the two intervals allow."""
    m = a["mean"] / b["mean"] - 1
    lo = (a["mean"] - a["half_width"]) / (b["mean"] + b["half_width"]) - 1
    hi = (a["mean"] + a["half_width"]) / max(b["mean"] - b["half_width"], 1e-300) - 1
    return 100 * m, 100 * lo, 100 * hi


def predicted_by_label(profile_path, profile, predicted_path, predicted):
    """{'naive order 4': (mJ, predicted us), ...}: predict-app's launch energy and time for each
    configuration the profile labels."""
    if profile.get("schema") != "warpmodel.profile/1" or not isinstance(profile.get("launches"), list):
        fail(f"{profile_path}: expected a warpmodel.profile/1 document with launches (warpmodel profile --kernel stencil)")
    if not isinstance(predicted.get("rows"), list):
        fail(f"{predicted_path}: expected predict-app's JSON with rows (warpmodel predict-app --format json)")
    label_of = {l.get("launch_index"): l.get("label", "") for l in profile["launches"]}
    out = {}
    for row in predicted["rows"]:
        mj = row.get("predicted_energy_mj")
        if mj is None:
            continue
        for index in row.get("launch_indices", []):
            if label_of.get(index):
                out[label_of[index]] = (mj, row)
    return out


def at_run_time(row, static_w, seconds_per_step, limit_w=None):
    """E.1 at the run's own time per step instead of the predicted time (the dynamic energy does not
    depend on the time, so only the static power's share moves), E.3's cap at the power limit times that
    time where the device profile has the limit. What is left is the coefficients' error."""
    if row is None or static_w is None or not seconds_per_step:
        return None
    dynamic = report_io.dynamic_joules(row, static_w)
    return None if dynamic is None else report_io.energy_at(seconds_per_step, static_w, dynamic, limit_w)


# A run whose mean power is within this share of the enforced limit ran at the limit (the board lowers its
# clocks to hold it).
LIMIT_MARGIN = 0.02


def loaded_clock(run):
    """The SM clock NVML read just after the timed region (MHz), or None."""
    return run["energy"].get("board", {}).get("sm_clock_mhz")


def at_power_limit(run):
    """Whether the run's mean power reached the enforced limit (None: the limit was not read)."""
    limit = run["energy"].get("board", {}).get("power_limit_w")
    if not limit:
        return None
    return run["energy"]["mean_watts_counter"]["mean"] >= (1 - LIMIT_MARGIN) * limit


def render(runs, predicted=None, static_w=None, limit_w=None):
    lines = ["# Stencil energy: the five variants beside seed 004", ""]
    lines.append("Generated by `scripts/energy_report.py` from `warpmodel run-stencil --energy -o` JSON (named below). "
                 "Each figure is the mean of the readings with its 95 % Student-t half-width; efficiency is performance "
                 "over average power (seed 004's definition), in points per second per watt; the idle power is reported "
                 "apart, never subtracted.")
    lines.append("")
    rows_csv = []
    if not runs:
        lines.append("**No measurement yet.** No run JSON was given; `scripts/fwi_device_run.sh` measures the five variants "
                     "on a GPU. Seed 004's gains (K20m):")
        lines.append("")
        lines.append(md_table(["int.z.reg over", "energy efficiency (seed 004)", "performance (seed 004)", "ours"],
                              [[b, f"+{e:.2f} %", f"+{p:.2f} %", "not measured"] for b, e, p in SEED_GAINS]))
        return "\n".join(lines), rows_csv
    errors, errors_at_run = [], []
    by_limit = {True: [], False: []}  # errors of the runs at and below the power limit
    by_order = {}
    for path, r in runs:
        by_order.setdefault(r["order"], {})[r["variant"]] = (path, r)
    first = runs[0][1]["provenance"]
    lines.append(f"GPU: {first.get('gpu', '?')}, driver {first.get('driver', '?')}, power limit "
                 f"{runs[0][1]['energy']['board'].get('power_limit_w')} W (read, not changed).")
    lines.append("")
    # Readings measured before the meter took them between the counter's steps (docs/energy.md): each
    # is off by up to one step of a counter that moves every ~100 ms on an H100.
    untimed = [os.path.basename(p) for p, r in runs if "tick_aligned_readings" not in r["energy"]]
    if untimed:
        lines.append(f"**Readings not aligned to the counter's steps** ({len(untimed)} of {len(runs)} runs, measured "
                     "before the meter took each reading's energy between the counter's steps): each reading is off by "
                     "up to one step of the counter (about 100 ms of the board's power on an H100), so their means "
                     "depend on where the readings fell; measure again (`scripts/fwi_device_run.sh`, stage "
                     "stencil-energy).")
        lines.append("")
    for order in sorted(by_order):
        runs_o = by_order[order]
        rows = []
        for v in VARIANTS:
            if v not in runs_o:
                continue
            path, r = runs_o[v]
            e = r["energy"]
            size = "x".join(str(n) for n in r["size"])
            clock = loaded_clock(r)
            row = [v, size, pm(e["joules_per_step"]), pm(e["points_per_joule"]), pm(e["mean_watts_counter"]),
                   "-" if clock is None else f"{clock:.0f}", pm(e["efficiency_points_per_s_per_w"]), f"{e['idle_w']:.1f}"]
            mj, prow = predicted.get(f"{v} order {order}", (None, None)) if predicted is not None else (None, None)
            at_run = at_run_time(prow, static_w, r.get("seconds_per_step"), limit_w)
            if predicted is not None:
                measured = e["joules_per_step"]["mean"]
                error = pct_error(mj / 1000 if mj is not None else None, measured)
                row += [f"{mj / 1000:.4g}" if mj is not None else "-", f"{error:+.1f} %" if error is not None else "-"]
                if error is not None:
                    errors.append((error, f"{v} order {order}"))
                    at_limit = at_power_limit(r)
                    if at_limit is not None:
                        by_limit[at_limit].append((error, clock))
                if static_w is not None:
                    error_at_run = pct_error(at_run, measured)
                    row += [f"{at_run:.4g}" if at_run is not None else "-",
                            f"{error_at_run:+.1f} %" if error_at_run is not None else "-"]
                    if error_at_run is not None:
                        errors_at_run.append((error_at_run, f"{v} order {order}"))
            rows.append(row + [os.path.basename(path)])
            rows_csv.append([order, v, size, e["joules_per_step"]["mean"], e["joules_per_step"]["half_width"],
                             e["points_per_joule"]["mean"], e["mean_watts_counter"]["mean"],
                             e["efficiency_points_per_s_per_w"]["mean"], e["efficiency_points_per_s_per_w"]["half_width"],
                             e["idle_w"], "" if clock is None else clock, mj / 1000 if mj is not None else "",
                             at_run if at_run is not None else ""] + provenance_cells(r))
        lines.append(f"## Order {order}")
        lines.append("")
        lines.append(md_table(["variant", "size", "J per step", "points per J", "mean W", "SM MHz after", "efficiency (points/s/W)",
                               "idle W"] + (["predicted J per step", "error"] if predicted is not None else []) +
                              (["at the run's time", "error"] if predicted is not None and static_w is not None else []) +
                              ["source"],
                              rows))
        gains = []
        for base, seed_e, seed_p in SEED_GAINS:
            aligned = ["tick_aligned_readings" in runs_o[v][1]["energy"] for v in ("intz-reg", base) if v in runs_o]
            if len(aligned) == 2 and aligned[0] != aligned[1]:
                # One run's readings were taken between the counter's steps and the other's were not: their
                # efficiencies differ by the meter as much as by the kernels.
                gains.append([base, f"+{seed_e:.2f} %", "not comparable: one of the two runs predates the tick-aligned meter"])
            elif "intz-reg" in runs_o and base in runs_o:
                m, lo, hi = gain(runs_o["intz-reg"][1]["energy"]["efficiency_points_per_s_per_w"],
                                 runs_o[base][1]["energy"]["efficiency_points_per_s_per_w"])
                gains.append([base, f"+{seed_e:.2f} %", f"{m:+.1f} % ({lo:+.1f} to {hi:+.1f})"])
            else:
                gains.append([base, f"+{seed_e:.2f} %", "not measured"])
        lines.append("intz-reg's energy efficiency over each base variant, beside seed 004's int.z.reg (K20m):")
        lines.append("")
        lines.append(md_table(["over", "seed 004 (K20m)", "ours (range from the intervals)"], gains))
    if predicted is not None:
        lines.append("## The launch energy the model predicts")
        lines.append("")
        if errors:
            mape, signed, worst, under = summary(errors)
            lines.append(f"E.1-E.2 from each launch's counters and the device profile's energy coefficients, against the "
                         f"counter's J per step: MAPE {mape:.1f} % over {len(errors)} configurations (goal: within 15 %), "
                         f"mean signed {signed:+.1f} %, {under} of {len(errors)} under-predicted; worst {worst[1]} "
                         f"{worst[0]:+.1f} %.")
            if errors_at_run:
                mape, signed, worst, _ = summary(errors_at_run)
                lines.append("")
                lines.append(f"The same at each run's own time per step (\"at the run's time\": the static power over the "
                             f"measured time, not the predicted one, so the time model's error is out and the "
                             f"coefficients' is left): MAPE {mape:.1f} %, mean signed {signed:+.1f} %; worst {worst[1]} "
                             f"{worst[0]:+.1f} %.")
            if by_limit[True] and by_limit[False]:
                def part(rows):
                    clocks = sorted(c for _, c in rows if c is not None)
                    span = "not read" if not clocks else (f"{clocks[0]:.0f}" if clocks[0] == clocks[-1] else
                                                          f"{clocks[0]:.0f}-{clocks[-1]:.0f}") + " MHz"
                    return f"{len(rows)} configurations, mean signed {statistics.fmean(e for e, _ in rows):+.1f} %, SM clock after the region {span}"
                lines.append("")
                lines.append(f"At the power limit (mean W within {LIMIT_MARGIN * 100:.0f} % of it): {part(by_limit[True])}; "
                             f"below it: {part(by_limit[False])}. The coefficients are measured far below the limit, "
                             f"at the full clock (docs/energy.md).")
        else:
            lines.append("No configuration of the runs is in the profile: nothing to compare.")
        lines.append("")
    return "\n".join(lines), rows_csv


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", action="append", default=[], help="warpmodel run-stencil --energy -o output (repeatable)")
    ap.add_argument("--profile", help="warpmodel profile --kernel stencil of the runs' launches (labels the predictions)")
    ap.add_argument("--predicted", help="warpmodel predict-app --format json of that profile")
    ap.add_argument("--device", help="the device.json predict-app used: its static power prices the predictions "
                                     "again at each run's own time per step")
    ap.add_argument("--out", help="folder for energy.md and energy.csv (default: print the page)")
    a = ap.parse_args()
    if bool(a.profile) != bool(a.predicted):
        fail("--profile and --predicted go together (the profile labels predict-app's rows)")
    runs = [(p, load(p)) for p in a.run]
    for p, r in runs:
        check(p, r)
    predicted = predicted_by_label(a.profile, load(a.profile), a.predicted, load(a.predicted)) if a.profile else None
    if a.device and not a.predicted:
        fail("--device goes with --profile and --predicted (it prices the predictions at the runs' own time)")
    device = load(a.device) if a.device else None
    static_w = report_io.static_watts(PROGRAM, a.device, device) if device else None
    limit_w = report_io.power_limit_watts(device) if device else None
    page, rows = render(runs, predicted, static_w, limit_w)
    if not a.out:
        print(page, end="")
        return
    write_atomically(os.path.join(a.out, "energy.md"), page)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["order", "variant", "size", "joules_per_step", "joules_per_step_half_width", "points_per_joule",
                "mean_watts", "efficiency_points_per_s_per_w", "efficiency_half_width", "idle_w", "sm_clock_mhz_after_region",
                "predicted_joules_per_step", "predicted_joules_at_run_time", "gpu", "driver", "cuda", "sm_clock_mhz", "measured_date",
                "measured_commit", "measurement_command"])
    w.writerows(rows)
    write_atomically(os.path.join(a.out, "energy.csv"), buf.getvalue())


if __name__ == "__main__":
    main()
