#!/usr/bin/env python3
"""Provenance sidecars for the committed tables that are computed from measurements (writers only:
nothing here measures, and nothing here is typed by hand: every field is copied from a record the
measuring run wrote).

  provenance_sidecars.py results            (scripts/regenerate_results.sh runs it)

For each GPU folder results/<gpu>/ it writes, where the inputs exist:
  app-example.predict.provenance.json   the CUPTI profile's run (app-example.profile.json "provenance")
                                        and the device profile's characterize run, and the command
  ubench.provenance.json                the characterize run that wrote device.json and ubench.csv/.md
  stencils.provenance.json              the characterize_gpu.sh run whose stencils stage wrote
                                        stencils.json (the newest such characterize_gpu.*.provenance.json)
  cupti-vs-ncu-runs/cupti-N.provenance.json   the CUPTI run of cupti-N.csv (its twin cupti-N.json)
  adi-dram-P-N.provenance.json          likewise for the ADI step's DRAM bytes (profile --kernel adi)
  adi.provenance.json                   the characterize_gpu.sh run whose adi stage wrote adi.json and
                                        tridiagonal.json (and, through adi_report.py, their .md/.csv)
and results/compare-<a>-<b>.provenance.json for the device comparison. The tables themselves carry it
too: every row of validation.csv, app-example.predict.csv, adi.csv, tridiagonal.csv and adi-dram-*.csv,
and the first row of ubench.csv (100,000 rows), get the columns gpu, driver, cuda, sm_clock_mhz, measured_date, measured_commit,
measurement_command; app-example.predict.md and
compare-<a>-<b>.md end with a provenance section, compare-<a>-<b>.json gets a "provenance" key. Each record has the fields
gpu, driver, cuda, sm_clock_mhz, date, commit and command of the measurement (as that run recorded
them), and the command that computed the table from it. The output depends only on committed files,
so regenerate_results.sh writes the same bytes every time.

Bad input (unreadable or malformed JSON): one line on stderr, exit 2.
"""
import csv
import glob
import json
import os
import sys


class InputError(Exception):
    pass


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: {e}")


def write(path, record):
    text = json.dumps(record, indent=2, sort_keys=True) + "\n"
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def run_record(path, p, cuda, clock_before, clock_after, clock_source):
    """A measuring run's record in the common field names."""
    return {"file": path, "gpu": p.get("gpu"), "driver": p.get("driver"), "cuda": cuda,
            "sm_clock_mhz": {"before": clock_before, "after": clock_after, "source": clock_source},
            "date": p.get("date"), "commit": p.get("commit"), "command": p.get("command")}


def device_run(device_path):
    """The characterize run of a device profile."""
    p = load(device_path).get("provenance", {})
    return run_record(device_path, p, p.get("cuda_runtime"), p.get("sm_clock_mhz_before"),
                      p.get("sm_clock_mhz_after"), "NVML, before and after the characterize run")


def cupti_run(profile_path):
    """The run of a warpmodel.profile/1 document (profile, profile -- APP)."""
    p = load(profile_path).get("provenance", {})
    return run_record(profile_path, p, p.get("cuda"), p.get("sm_clock_mhz"), p.get("sm_clock_mhz_after"),
                      "NVML as the profile recorded it (0: not read)")


# The provenance columns a table's rows carry (as validation-held-out.csv names them), and the marker
# of the section a Markdown table ends with: the tables record where their numbers came from
# themselves, not only through the sidecar beside them.
COLUMNS = ["gpu", "driver", "cuda", "sm_clock_mhz", "measured_date", "measured_commit", "measurement_command"]
MARKER = "<!-- provenance: scripts/provenance_sidecars.py -->"


def clock_text(run):
    clock = run.get("sm_clock_mhz")
    if isinstance(clock, dict):
        values = [v for k, v in clock.items() if k != "source" and v]
        return str(values[0]) if values else "not recorded"
    return str(clock) if clock else "not recorded"


def columns_of(run):
    return [str(run.get("gpu")), str(run.get("driver")), str(run.get("cuda")), clock_text(run),
            str(run.get("date")), str(run.get("commit")), str(run.get("command"))]


def embed_in_csv(path, run, every_row=True):
    """The CSV gets the run's provenance columns (replaced where they are already): on every row, or,
    for a long series (ubench.csv, 100,000 rows), on the first row only, the others left empty (in
    pandas, .ffill() spreads it)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        return
    header = rows[0]
    keep = [i for i, name in enumerate(header) if name not in COLUMNS]
    values = columns_of(run)
    empty = [""] * len(values)
    out = [[header[i] for i in keep] + COLUMNS] + [[r[i] for i in keep if i < len(r)] + (values if every_row or n == 0 else empty)
                                                   for n, r in enumerate(rows[1:])]
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(out)
    os.replace(tmp, path)


def embed_in_markdown(path, runs):
    """The Markdown table ends with a provenance section, one line per measuring run (replaced)."""
    with open(path) as f:
        text = f.read()
    if MARKER in text:
        text = text[:text.index(MARKER)].rstrip("\n") + "\n"
    def clock(r):
        text = clock_text(r)
        return "SM clock not recorded" if text == "not recorded" else f"SM clock {text} MHz"
    lines = [f"- {r.get('file')}: {r.get('gpu')}, driver {r.get('driver')}, CUDA {r.get('cuda')}, {clock(r)}, "
             f"{r.get('date')}, commit {r.get('commit')}, `{r.get('command')}`" for r in runs]
    text += "\n" + MARKER + "\n## Provenance of the measurements\n\n" + "\n".join(lines) + "\n"
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def characterize_stage_run(folder, stage, stage_text, clock):
    """The newest characterize_gpu.sh run in `folder` whose stage `stage` succeeded, with the SM clock
    record `clock` (each stage's benchmark records its own, or none)."""
    runs = []
    for path in glob.glob(os.path.join(folder, "characterize_gpu*.provenance.json")):
        run = load(path)
        if run.get("stages", {}).get(stage, {}).get("status") == 0:
            runs.append((run.get("date") or "", path, run))
    if not runs:
        return None
    _, path, run = max(runs)
    return {"file": path, "gpu": run.get("gpu"), "gpu_uuid": run.get("gpu_uuid"), "driver": run.get("driver"),
            "cuda": run.get("cuda"), "sm_clock_mhz": dict(clock, at_start=run.get("sm_clock_mhz_at_start")),
            "date": run.get("date"), "commit": run.get("commit"), "command": run.get("command"),
            "stage": stage_text}


def stencil_run(folder):
    return characterize_stage_run(
        folder, "stencils", "stencils: bench_stencils --benchmark_repetitions=5 --benchmark_report_aggregates_only=true "
                            "--benchmark_out=stencils.json",
        {"source": "nvidia-smi when characterize_gpu.sh started (idle clock); bench_stencils does not record the "
                   "clock under load"})


def adi_run(folder):
    """The characterize_gpu.sh run whose adi stage wrote adi.json and tridiagonal.json, with the maximum
    SM clock bench_adi read from the runtime."""
    context = load(os.path.join(folder, "adi.json")).get("context", {})
    return characterize_stage_run(
        folder, "adi", "adi: bench_adi --benchmark_out=adi.json, bench_tridiagonal --benchmark_out=tridiagonal.json, "
                       "then scripts/adi_report.py (adi.md/.csv, tridiagonal.md/.csv)",
        {"max_runtime": context.get("gpu_max_sm_clock_mhz"),
         "source": "bench_adi's context (cudaDevAttrClockRate, the maximum) and nvidia-smi when "
                   "characterize_gpu.sh started (idle clock)"})


def at_top_level(run):
    """A run's GPU, driver, CUDA, SM clock (MHz, the mean of the readings before and after, where read),
    date, commit and command at a sidecar's top level, as validation.provenance.json has them."""
    clock = run.get("sm_clock_mhz") or {}
    readings = [c for c in (clock.get("before"), clock.get("after")) if isinstance(c, (int, float)) and c > 0]
    top = {key: run.get(key) for key in ("gpu", "driver", "cuda", "date", "commit", "command")}
    top["sm_clock_mhz"] = sum(readings) / len(readings) if readings else None
    return top


def profile_tables(pattern, embed):
    """Sidecars for the CSV tables `warpmodel profile` wrote beside their JSON twins, and with `embed`
    the provenance columns in the CSV too (not for the CUPTI-vs-ncu runs: those CSVs are the test's raw
    runs, kept as written, and the device's 64 MiB tree has no room for their copies)."""
    written = []
    for table in sorted(glob.glob(pattern)):
        twin = table[:-len(".csv")] + ".json"
        if os.path.exists(twin):
            out = table[:-len(".csv")] + ".provenance.json"
            run = cupti_run(twin)
            write(out, dict(at_top_level(run), tables=[os.path.basename(table), os.path.basename(twin)],
                            measurement=run))
            if embed:
                embed_in_csv(table, run)
            written.append(out)
    return written


def gpu_folder(folder):
    written = []
    device = os.path.join(folder, "device.json")
    has_device = os.path.exists(device)
    profile = os.path.join(folder, "app-example.profile.json")
    if has_device and os.path.exists(profile):
        out = os.path.join(folder, "app-example.predict.provenance.json")
        write(out, {"tables": ["app-example.predict.md", "app-example.predict.csv"],
                    "measurement": cupti_run(profile), "device_profile": device_run(device),
                    "analysis_command": f"warpmodel predict-app --profile {profile} --device {device} "
                                        "--format markdown|csv (scripts/regenerate_results.sh)"})
        written.append(out)
        for table in ("app-example.predict.csv", "app-example.predict.md"):
            path = os.path.join(folder, table)
            if os.path.exists(path):
                if table.endswith(".csv"):
                    embed_in_csv(path, cupti_run(profile))
                else:
                    embed_in_markdown(path, [cupti_run(profile), device_run(device)])
    if has_device and os.path.exists(os.path.join(folder, "ubench.csv")):
        out = os.path.join(folder, "ubench.provenance.json")
        write(out, {"tables": ["ubench.csv", "ubench.md", "device.json"], "measurement": device_run(device)})
        written.append(out)
        embed_in_csv(os.path.join(folder, "ubench.csv"), device_run(device), every_row=False)
    if os.path.exists(os.path.join(folder, "stencils.json")):
        run = stencil_run(folder)
        if run is not None:
            out = os.path.join(folder, "stencils.provenance.json")
            write(out, {"tables": ["stencils.json", "stencils.md", "stencils.csv"], "measurement": run,
                        "analysis_command": f"scripts/stencil_report.py bench --json {folder}/stencils.json "
                                            f"--device {folder}/device.json --provenance {out} "
                                            "(scripts/regenerate_results.sh)"})
            written.append(out)
    written += profile_tables(os.path.join(folder, "cupti-vs-ncu-runs", "cupti-*.csv"), embed=False)
    written += profile_tables(os.path.join(folder, "adi-dram-*.csv"), embed=True)
    if os.path.exists(os.path.join(folder, "adi.json")):
        run = adi_run(folder)
        if run is not None:
            tables = [t for t in ("adi.json", "adi.md", "adi.csv", "tridiagonal.json", "tridiagonal.md", "tridiagonal.csv")
                      if os.path.exists(os.path.join(folder, t))]
            out = os.path.join(folder, "adi.provenance.json")
            write(out, {"tables": tables, "measurement": run})
            written.append(out)
            for table in ("adi.csv", "tridiagonal.csv"):
                if os.path.exists(os.path.join(folder, table)):
                    embed_in_csv(os.path.join(folder, table), run)
    # validation.csv: the sweep's run, as validate's own validation.provenance.json records it.
    sweep = os.path.join(folder, "validation.provenance.json")
    if os.path.exists(sweep) and os.path.exists(os.path.join(folder, "validation.csv")):
        embed_in_csv(os.path.join(folder, "validation.csv"), load(sweep))
    return written


def main(argv):
    root = argv[1] if len(argv) > 1 else "results"
    written = []
    for folder in sorted(glob.glob(os.path.join(root, "*", ""))):
        written += gpu_folder(folder.rstrip("/"))
    for compare in sorted(glob.glob(os.path.join(root, "compare-*.json"))):
        if compare.endswith(".provenance.json"):
            continue
        doc = load(compare)
        sources = [d.get("source") for d in doc.get("devices", []) if d.get("source")]
        def was_measured(s):
            return os.path.exists(s) and bool(load(s).get("provenance", {}).get("commit"))
        measured = [device_run(s) for s in sources if was_measured(s)]
        typed = [s for s in sources if not was_measured(s)]
        out = compare[:-len(".json")] + ".provenance.json"
        write(out, {"tables": [os.path.basename(compare), os.path.basename(compare)[:-len(".json")] + ".md"],
                    "measurements": measured,
                    "not_measured": [f"{s}: the thesis's printed values (see its own fields' sources)" for s in typed],
                    "analysis_command": "warpmodel compare-devices " + " ".join(sources) +
                                        " --format markdown|json (scripts/regenerate_results.sh)"})
        written.append(out)
        doc["provenance"] = {"measurements": measured, "not_measured": typed}
        write(compare, doc)
        markdown = compare[:-len(".json")] + ".md"
        if os.path.exists(markdown):
            embed_in_markdown(markdown, measured)
    print(f"provenance_sidecars: wrote {len(written)} files")


if __name__ == "__main__":
    try:
        main(sys.argv)
    except InputError as e:
        print(f"provenance_sidecars: {e}", file=sys.stderr)
        sys.exit(2)
