#!/usr/bin/env python3
"""The provenance of every output under results/: one record per output, in one file per folder
(FOLDER/provenance.json, schema warpmodel.provenance/1). This script is its only writer.

  provenance_index.py index results                 every folder: refresh the records (regenerate_results.sh)
  provenance_index.py record DIR --stage S --outputs F1,F2 --command CMD --run RUN.json
                                                    after a measuring stage on the GPU (characterize_gpu.sh)
  provenance_index.py check results                 every file has a record and every record a file

A record says where an output's numbers came from: kind (measured on a GPU, derived from measured
files, or computed from printed inputs), the GPU, its UUID, the driver, CUDA, the SM clock, the date,
the commit and the exact command of the measurement; a derived output adds the files it was derived
from and the command that derived it. Records of measured outputs are kept from run to run (only a
measuring stage writes them), refreshed from the provenance a file embeds when it was re-measured
without `record` (warpmodel's JSON outputs carry their own); records of derived outputs are rewritten
by `index`, from their inputs' records. The tables carry the same facts themselves: every row of the
CSV tables computed from measurements gets the provenance columns (pandas reads them with the data),
and the Markdown tables end with a provenance section. The output depends only on committed files, so
`index` writes the same bytes every time.

Bad input (unreadable or malformed JSON, an output without a record): one line on stderr, exit 2.
"""
import argparse
import csv
import glob
import io
import json
import lzma
import os
import subprocess
import sys

SCHEMA = "warpmodel.provenance/1"
INDEX = "provenance.json"
# The common fields of a record, in this order; a field the measurement did not record is null.
FIELDS = ["kind", "gpu", "gpu_uuid", "driver", "cuda", "sm_clock_mhz", "sm_clock_source", "date", "commit", "command"]
RUNS_KEPT = 12  # the history of measuring runs a folder keeps (git keeps the rest)


class InputError(Exception):
    pass


def read_text(path):
    """A file's text; an .xz file decompressed (the large measurement files, docs/results-layout.md)."""
    if path.endswith(".xz"):
        with lzma.open(path, "rt", encoding="utf-8", newline="") as f:
            return f.read()
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def load(path):
    try:
        return json.loads(read_text(path))
    except (OSError, ValueError, lzma.LZMAError) as e:
        raise InputError(f"{path}: {e}")


def write_text(path, text):
    """Atomically; an .xz name compressed as `xz -9e` does (the same bytes for the same text)."""
    tmp = path + ".tmp"
    if path.endswith(".xz"):
        with open(tmp, "wb") as f:
            f.write(lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))
    else:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    os.replace(tmp, path)


def write_json(path, doc):
    write_text(path, json.dumps(doc, indent=1, sort_keys=False) + "\n")


def record(kind, **fields):
    out = {key: fields.get(key) for key in FIELDS}
    out["kind"] = kind
    for key, value in fields.items():
        if key not in out:
            out[key] = value
    return out


def cuda_text(value):
    """"13000" (the runtime's number) -> "13.0"; "13.0" stays."""
    text = str(value) if value is not None else None
    if text and text.isdigit() and len(text) >= 4:
        return f"{int(text) // 1000}.{int(text) % 1000 // 10}"
    return text


def mean_clock(*readings):
    values = []
    for r in readings:
        try:
            v = float(r)
        except (TypeError, ValueError):
            continue
        if v > 0:
            values.append(v)
    return round(sum(values) / len(values), 1) if values else None


# --- measured outputs whose files carry their own provenance --------------------------------------

def from_device_profile(doc):
    p = doc.get("provenance", {})
    return record("measured", gpu=p.get("gpu"), driver=p.get("driver"), cuda=cuda_text(p.get("cuda_runtime")),
                  sm_clock_mhz=mean_clock(p.get("sm_clock_mhz_before"), p.get("sm_clock_mhz_after")),
                  sm_clock_source="NVML, mean of the readings before and after the run",
                  date=p.get("date"), commit=p.get("commit"), command=p.get("command"))


def from_cupti_profile(doc):
    """A warpmodel.profile/1 document (profile, profile -- APP), or a collection of them."""
    p = (doc.get("profiles") or [doc])[0].get("provenance", {}) if "profiles" in doc else doc.get("provenance", {})
    clock = mean_clock(p.get("sm_clock_mhz"), p.get("sm_clock_mhz_after"))
    return record("measured", gpu=p.get("gpu"), driver=p.get("driver"), cuda=cuda_text(p.get("cuda")),
                  sm_clock_mhz=clock,
                  sm_clock_source="NVML, before and after the collection" if clock else "not read (NVML unavailable)",
                  date=p.get("date"), commit=p.get("commit"), command=p.get("command"))


def from_run(doc):
    """The JSON of a run command (run-fwi --variant, run-stencil -o, run-adi -o): its "provenance"."""
    p = doc.get("provenance", {})
    return record("measured", gpu=p.get("gpu"), driver=p.get("driver"), cuda=cuda_text(p.get("cuda")),
                  sm_clock_mhz=mean_clock(p.get("sm_clock_mhz")),
                  sm_clock_source="the runtime's maximum SM clock (the run's provenance); NVML's clocks in its energy.board",
                  date=p.get("date"), commit=p.get("commit"), command=p.get("command"))


def from_sweep(doc):
    p = doc.get("provenance", {})
    return record("measured", gpu=p.get("gpu"), driver=p.get("driver"), cuda=cuda_text(p.get("cuda")),
                  sm_clock_mhz=None, sm_clock_source="NVML per launch: validation.csv's sm_clock_mhz column",
                  date=p.get("date"), commit=p.get("commit"), command=p.get("command"))


def from_external_bundle(doc):
    """external/profiles.json.xz and cubins.json.xz (scripts/external_bundle.py): their runs' GPU, driver,
    CUDA, dates, commits and commands, both suites' repositories and commits, and the build lines."""
    p = doc.get("provenance", {})
    rec = record("measured", gpu=p.get("gpu"), gpu_uuid=p.get("gpu_uuid"), driver=p.get("driver"),
                 cuda=cuda_text(p.get("cuda")), sm_clock_mhz=p.get("sm_clock_mhz"),
                 sm_clock_source=p.get("sm_clock_source"), date=p.get("date"), commit=p.get("commit"),
                 command=p.get("command"))
    rec["gpu_uuids"] = p.get("gpu_uuids")
    rec["nvcc"] = p.get("nvcc")
    rec["suites"] = p.get("suites")
    rec["build_lines"] = p.get("build_lines")
    apps = doc.get("applications", [])
    if isinstance(apps, list):  # profiles.json.xz (cubins.json.xz maps each application to its cubins)
        rec["applications"] = {"listed": len(apps), "profiled": sum(1 for a in apps if a.get("profile")),
                               "sass_rebuilt": sorted(a.get("app") for a in apps
                                                      if a.get("profile") and str(a.get("sass", "")).startswith("rebuilt"))}
    return rec


def from_access_patterns(doc):
    """access-patterns.json.xz: the SASS addresses of the program's kernels (`warpmodel sass-analyze
    --addresses`, or scripts/merge_access_patterns.py refreshing them): derived from the binary, no GPU."""
    p = doc.get("provenance", {})
    analysis = p.get("refreshed") if isinstance(p.get("refreshed"), dict) else p
    rec = record("derived", gpu="none: the SASS of the warpmodel binary (no GPU run)", cuda="13.0",
                 sm_clock_source="not applicable", date=analysis.get("date"), commit=analysis.get("commit"),
                 command=p.get("command") or analysis.get("command"))
    rec["from"] = ["build/cli/warpmodel (cuobjdump -sass)"]
    rec["derived_by"] = rec["command"]
    return rec


# Files that embed their own provenance, and how to read it (glob relative to a GPU folder).
EMBEDDED = [
    ("device.json", from_device_profile),
    ("validation-measurements.json*", from_sweep),
    ("metrics.json", from_cupti_profile),
    ("adi-dram-*.json", from_cupti_profile),
    ("cupti-vs-ncu-runs/cupti-*.json", from_cupti_profile),
    ("app-example/profile.json", from_cupti_profile),
    ("external/profiles.json.xz", from_external_bundle),
    ("external/cubins.json.xz", from_external_bundle),
    ("access-patterns.json*", from_access_patterns),
    ("fwi/run-*.json*", from_run),
    ("fwi/profile-*.json*", from_cupti_profile),
    ("fwi/energy-profile-*.json*", from_cupti_profile),
    ("energy/profile-*.json*", from_cupti_profile),
    ("energy/*.json", from_run),
]
# Files measured in the same run as another one (the twin's record is theirs too).
TWINS = [
    ("ubench.csv*", "device.json"), ("ubench.md", "device.json"),
    ("metrics.csv", "metrics.json"),
    ("adi-dram-*.csv", "{stem}.json"),
    ("cupti-vs-ncu-runs/cupti-*.csv", "{stem}.json"),
    ("app-example/profile.csv", "app-example/profile.json"),
    ("fwi/profile-*.csv", "{stem}.json"),
    ("app-example/profile.cubins/*", "app-example/profile.json"),
]


def derived_rules(folder):
    """(output glob, inputs, the command that derives it) for a GPU folder."""
    return [
        ("validation.md", ["validation-measurements.json.xz", "device.json", "access-patterns.json.xz",
                           "external/profiles.json.xz"],
         f"warpmodel validate --from {folder} (scripts/regenerate_results.sh)"),
        ("validation.json", ["validation-measurements.json.xz", "device.json", "access-patterns.json.xz",
                             "external/profiles.json.xz"],
         f"warpmodel validate --from {folder}"),
        ("external/launches.csv", ["external/profiles.json.xz", "external/cubins.json.xz", "device.json"],
         f"warpmodel validate --from {folder} (the external set predicted with the fitted device.json)"),
        ("external/apps.csv", ["external/profiles.json.xz", "external/cubins.json.xz"],
         f"warpmodel validate --from {folder}"),
        ("external/summary.md", ["external/profiles.json.xz", "external/cubins.json.xz", "device.json"],
         f"warpmodel validate --from {folder}"),
        ("validation.csv", ["validation-measurements.json.xz", "device.json", "access-patterns.json.xz"],
         f"warpmodel validate --from {folder}"),
        ("validation.tex", ["validation-measurements.json.xz", "device.json"], f"warpmodel validate --from {folder}"),
        ("validation-held-out.csv", ["validation-measurements.json.xz", "device.json"],
         f"warpmodel validate --from {folder} --cross OTHER_GPU_FOLDERS"),
        ("validation-derived-counters.csv", ["validation-measurements.json.xz", "access-patterns.json.xz"],
         f"warpmodel validate --from {folder}"),
        ("validation_*.png", ["validation.csv"], f"scripts/plot_validation.py {folder}/validation.csv"),
        ("external/accuracy.png", ["external/launches.csv", "external/profiles.json.xz"], f"scripts/plot_validation.py {folder}/validation.csv"),
        ("ubench_*.png", ["ubench.csv.xz"], f"scripts/plot_ubench.py {folder}/ubench.csv.xz"),
        ("roofline.png", ["device.json"], f"scripts/plot_roofline.py {folder}/device.json"),
        ("stencils.md", ["stencils.json.xz", "device.json"], f"scripts/stencil_report.py bench --json {folder}/stencils.json.xz"),
        ("stencils.csv", ["stencils.json.xz", "device.json"], f"scripts/stencil_report.py bench --json {folder}/stencils.json.xz"),
        ("adi.md", ["adi.json", "adi-dram-double-2048.json", "adi-dram-single-2048.json"],
         f"scripts/adi_report.py --adi {folder}/adi.json --dram ... --out {folder}"),
        ("adi.csv", ["adi.json", "adi-dram-double-2048.json", "adi-dram-single-2048.json"],
         f"scripts/adi_report.py --adi {folder}/adi.json --dram ... --out {folder}"),
        ("tridiagonal.md", ["tridiagonal.json"], f"scripts/adi_report.py --tridiagonal {folder}/tridiagonal.json"),
        ("tridiagonal.csv", ["tridiagonal.json"], f"scripts/adi_report.py --tridiagonal {folder}/tridiagonal.json"),
        ("adi_steps.png", ["adi.csv"], f"scripts/plot_adi.py {folder}/adi.csv"),
        ("cupti-vs-ncu.md", ["cupti-vs-ncu-runs"], f"warpmodel compare-ncu --from {folder}/cupti-vs-ncu-runs"),
        ("cupti-vs-ncu.json", ["cupti-vs-ncu-runs"], f"warpmodel compare-ncu --from {folder}/cupti-vs-ncu-runs"),
        ("app-example/predict.md", ["app-example/profile.json", "device.json"],
         f"warpmodel predict-app --profile {folder}/app-example/profile.json --device {folder}/device.json --format markdown"),
        ("app-example/predict.csv", ["app-example/profile.json", "device.json"],
         f"warpmodel predict-app --profile {folder}/app-example/profile.json --device {folder}/device.json --format csv"),
        ("app-example/roofline.png", ["app-example/profile.json", "device.json"],
         f"warpmodel roofline --profile {folder}/app-example/profile.json --device {folder}/device.json"),
        ("app-example/roofline.csv", ["app-example/profile.json", "device.json"],
         f"warpmodel roofline --profile {folder}/app-example/profile.json --device {folder}/device.json"),
        ("fwi.md", ["fwi", "device.json"], f"scripts/fwi_report.py --run {folder}/fwi/run-*.json.xz --profile "
         f"{folder}/fwi/profile-*.json.xz --device {folder}/device.json --out {folder}"),
        ("fwi.csv", ["fwi", "device.json"], f"scripts/fwi_report.py --run {folder}/fwi/run-*.json.xz --out {folder}"),
        ("energy.md", ["energy/stencil-*.json"], f"scripts/energy_report.py --run {folder}/energy/stencil-*.json --out {folder}"),
        ("energy.csv", ["energy/stencil-*.json"], f"scripts/energy_report.py --run {folder}/energy/stencil-*.json --out {folder}"),
        ("README.md", ["device.json"], f"scripts/gpu_report.py {folder}"),
    ]


def matches(pattern, rel):
    import fnmatch
    return fnmatch.fnmatchcase(rel, pattern)


def folder_files(folder):
    out = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.startswith(".") or name.endswith(".tmp"):
                continue
            rel = os.path.relpath(os.path.join(root, name), folder)
            if rel != INDEX:
                out.append(rel)
    return out


def load_index(folder):
    path = os.path.join(folder, INDEX)
    if not os.path.exists(path):
        return {"schema": SCHEMA, "outputs": {}, "runs": []}
    doc = load(path)
    if doc.get("schema") != SCHEMA or not isinstance(doc.get("outputs"), dict):
        raise InputError(f"{path}: expected a {SCHEMA} document with \"outputs\"")
    doc.setdefault("runs", [])
    return doc


def uuid_of_run(runs, rec):
    """The UUID of the measuring run that wrote this record (same commit and date), where one did."""
    for run in reversed(runs):
        if run.get("gpu_uuid") and run.get("commit") and rec.get("commit") and \
                (run["commit"].startswith(rec["commit"]) or rec["commit"].startswith(run["commit"])) and \
                (run.get("date") or "")[:10] == (rec.get("date") or "")[:10]:
            return run["gpu_uuid"]
    return None


def measured_record(folder, rel, kept, runs):
    """The record of a measured file: from the provenance it embeds (refreshed when the kept record is
    of an older measurement), else the record `record` kept."""
    path = os.path.join(folder, rel)
    for pattern, reader in EMBEDDED:
        if matches(pattern, rel):
            fresh = reader(load(path))
            if kept and kept.get("date") == fresh.get("date") and kept.get("commit") == fresh.get("commit"):
                merged = dict(kept)
                merged.update({k: v for k, v in fresh.items() if v is not None})
                return merged
            fresh["gpu_uuid"] = uuid_of_run(runs, fresh)
            return fresh
    # A file a rule derives (derived_rules) is derived, whatever an earlier layout recorded for it.
    if any(matches(pattern, rel) for pattern, _, _ in derived_rules(folder)):
        return None
    return kept if kept and kept.get("kind") == "measured" else None


def twin_of(rel):
    """The file measured in the same run whose record is this one's too, if any."""
    for pattern, twin in TWINS:
        if matches(pattern, rel):
            return twin.format(stem=os.path.splitext(rel)[0])
    return None


def derived_record(inputs_records, inputs, command):
    """A derived output's record: the measurement fields of its first measured input, and what it came from."""
    base = next((r for r in inputs_records if r), None) or {}
    rec = record("derived", **{k: base.get(k) for k in FIELDS if k != "kind"})
    rec["from"] = inputs
    rec["derived_by"] = command
    return rec


def gpu_folder_index(folder):
    doc = load_index(folder)
    kept = doc["outputs"]
    runs = doc["runs"]
    outputs = {}
    files = folder_files(folder)
    for rel in files:
        if twin_of(rel) is None:
            rec = measured_record(folder, rel, kept.get(rel), runs)
            if rec is not None:
                outputs[rel] = rec
    for rel in files:
        twin = twin_of(rel)
        if twin is not None and twin in outputs:
            outputs[rel] = dict(outputs[twin])
    for rel in files:
        if rel in outputs:
            continue
        for pattern, inputs, command in derived_rules(folder):
            if matches(pattern, rel):
                # An input is a file, a folder (its first file with a record) or a glob (its first match).
                def inside(i, f):
                    return matches(i, f) if "*" in i else f.startswith(i + "/")
                present = [i for i in inputs if os.path.exists(os.path.join(folder, i)) or
                           ("*" in i and any(matches(i, f) for f in files))]
                recs = [outputs.get(i) or next((outputs[f] for f in files if inside(i, f) and f in outputs), None)
                        for i in present]
                outputs[rel] = derived_record(recs, present, command)
                break
        else:
            if rel in kept:  # derived on the GPU (e.g. an import of an ncu CSV): kept as recorded
                outputs[rel] = kept[rel]
            else:
                raise InputError(f"{folder}/{rel}: no provenance record (a measuring stage records it with "
                                 f"scripts/provenance_index.py record, or a rule in this script derives it)")
    unique = []
    for run in runs:  # one run recorded twice (by date and commit) is one run
        if not any(r.get("date") == run.get("date") and r.get("commit") == run.get("commit") for r in unique):
            unique.append(run)
    return {"schema": SCHEMA, "folder": folder,
            "note": "one record per output; written by scripts/provenance_index.py",
            "outputs": dict(sorted(outputs.items())), "runs": unique[-RUNS_KEPT:]}


# --- folders that are not one GPU's ---------------------------------------------------------------

def computed_folder_index(folder):
    """results/k40-thesis: computed from the thesis's printed K40 inputs; no GPU was used."""
    outputs = {}
    for rel in folder_files(folder):
        outputs[rel] = record("computed", gpu="none: the thesis's printed Tesla K40 inputs (seeds/000 chapter 4)",
                              driver="none (no GPU was used)", cuda="none (no GPU was used)", sm_clock_mhz=745,
                              sm_clock_source="the thesis's K40 clock (model/data/k40-thesis.device.json)",
                              date="not measured: recomputed by every regeneration",
                              commit="the commit holding this file (results.regenerate checks that its code writes it)",
                              command="scripts/regenerate_results.sh",
                              **{"from": ["model/data/k40-thesis.device.json",
                                          "model/data/stencil-order2-k40-thesis.kernel.json"]})
    return {"schema": SCHEMA, "folder": folder, "note": "one record per output; written by scripts/provenance_index.py",
            "outputs": outputs, "runs": []}


def cpu_folder_index(folder):
    """results/cpu-model: the model engine's speed, measured on a CPU (scripts/bench_model.sh)."""
    p = load(os.path.join(folder, "bench_model.json")).get("provenance", {})
    rec = record("measured", gpu=f"none: CPU {p.get('cpu')}", driver="none (CPU)", cuda="none (CPU)",
                 sm_clock_source="not applicable", date=p.get("date_utc"), commit=p.get("git_commit"),
                 command=p.get("command"))
    return {"schema": SCHEMA, "folder": folder, "note": "one record per output; written by scripts/provenance_index.py",
            "outputs": {rel: rec for rel in folder_files(folder)}, "runs": []}


def root_index(root):
    """results/compare-*: the GPUs' device profiles side by side (derived)."""
    outputs = {}
    for rel in sorted(os.listdir(root)):
        path = os.path.join(root, rel)
        if not os.path.isfile(path) or rel == INDEX or rel.startswith("."):
            continue
        if rel.startswith("compare-"):
            doc = load(os.path.join(root, rel.rsplit(".", 1)[0] + ".json"))
            sources = [d.get("source") for d in doc.get("devices", []) if d.get("source")]
            measured = [s for s in sources if os.path.exists(s) and load(s).get("provenance", {}).get("commit")]
            recs = [from_device_profile(load(s)) for s in measured]
            rec = derived_record(recs, sources, "warpmodel compare-devices " + " ".join(sources) +
                                 " --format markdown|json; scripts/plot_devices.py")
            rec["measurements"] = [dict(r, file=s) for r, s in zip(recs, measured)]
            outputs[rel] = rec
        else:
            raise InputError(f"{path}: no provenance rule for a file at the top of {root}")
    return {"schema": SCHEMA, "folder": root, "note": "one record per output; written by scripts/provenance_index.py",
            "outputs": outputs, "runs": []}


# --- the provenance columns of the tables ---------------------------------------------------------

COLUMNS = ["gpu", "driver", "cuda", "sm_clock_mhz", "measured_date", "measured_commit", "measurement_command"]
MARKER = "<!-- provenance: scripts/provenance_index.py -->"
# Tables whose rows carry their measurement's provenance (a long series only on its first row).
# (energy.csv carries each row's own run: scripts/energy_report.py writes the same columns per row;
# validation.csv each row's sweep run: `warpmodel validate` writes them, a merged sweep holds several.)
EMBED_CSV = ["adi.csv", "tridiagonal.csv", "adi-dram-*.csv", "app-example/predict.csv", "fwi.csv"]
EMBED_CSV_FIRST_ROW = ["ubench.csv", "ubench.csv.xz"]
EMBED_MD = ["app-example/predict.md"]


def columns_of(rec):
    clock = rec.get("sm_clock_mhz")
    return [str(rec.get("gpu")), str(rec.get("driver")), str(rec.get("cuda")),
            "not recorded" if clock is None else str(clock), str(rec.get("date")), str(rec.get("commit")),
            str(rec.get("command"))]


def embed_in_csv(path, rec, every_row=True):
    rows = list(csv.reader(io.StringIO(read_text(path), newline="")))
    if not rows:
        return
    header = rows[0]
    keep = [i for i, name in enumerate(header) if name not in COLUMNS]
    values = columns_of(rec)
    out = [[header[i] for i in keep] + COLUMNS]
    for n, r in enumerate(rows[1:]):
        out.append([r[i] for i in keep if i < len(r)] + (values if every_row or n == 0 else [""] * len(values)))
    text = "".join(",".join(_csv_cell(c) for c in row) + "\n" for row in out)
    write_text(path, text)


def _csv_cell(cell):
    if any(ch in cell for ch in ',"\n\r'):
        return '"' + cell.replace('"', '""') + '"'
    return cell


def embed_in_markdown(path, recs):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for marker in (MARKER, "<!-- provenance: scripts/provenance_sidecars.py -->"):
        if marker in text:
            text = text[:text.index(marker)].rstrip("\n") + "\n"
    def clock(r):
        return "SM clock not recorded" if r.get("sm_clock_mhz") is None else f"SM clock {r.get('sm_clock_mhz')} MHz"
    lines = [f"- {name}: {r.get('gpu')} ({r.get('gpu_uuid') or 'UUID not recorded'}), driver {r.get('driver')}, "
             f"CUDA {r.get('cuda')}, {clock(r)}, {r.get('date')}, commit {r.get('commit')}, `{r.get('command')}`"
             for name, r in recs]
    text += "\n" + MARKER + "\n## Provenance of the measurements\n\n" + "\n".join(lines) + "\n"
    write_text(path, text)


def embed_tables(folder, index):
    outputs = index["outputs"]
    def measurement(rel):
        rec = outputs.get(rel, {})
        return rec
    for rel, rec in outputs.items():
        path = os.path.join(folder, rel)
        if any(matches(p, rel) for p in EMBED_CSV):
            embed_in_csv(path, rec)
        elif any(matches(p, rel) for p in EMBED_CSV_FIRST_ROW):
            embed_in_csv(path, rec, every_row=False)
        elif any(matches(p, rel) for p in EMBED_MD):
            sources = [(i, measurement(i)) for i in rec.get("from", []) if i in outputs]
            embed_in_markdown(path, sources)


def index_all(root):
    written = 0
    for folder in sorted(glob.glob(os.path.join(root, "*", ""))):
        folder = folder.rstrip("/")
        name = os.path.basename(folder)
        if os.path.exists(os.path.join(folder, "device.json")):
            doc = gpu_folder_index(folder)
            embed_tables(folder, doc)
        elif os.path.exists(os.path.join(folder, "reproduction.json")):
            doc = computed_folder_index(folder)
        elif os.path.exists(os.path.join(folder, "bench_model.json")):
            doc = cpu_folder_index(folder)
        else:
            raise InputError(f"{folder}: neither a GPU folder (device.json), the thesis's (reproduction.json) "
                             f"nor the model's speed (bench_model.json)")
        write_json(os.path.join(folder, INDEX), doc)
        written += 1
        del name
    top = root_index(root)
    for rel, rec in top["outputs"].items():
        if rel.endswith(".md"):
            embed_in_markdown(os.path.join(root, rel), [(m["file"], m) for m in rec.get("measurements", [])])
    write_json(os.path.join(root, INDEX), top)
    print(f"provenance_index: wrote {written + 1} {INDEX} files")


def check_all(root):
    """Every file under results/ has a record in its folder's provenance.json, and every record a file."""
    problems = []
    for path in [os.path.join(root, INDEX)] + sorted(glob.glob(os.path.join(root, "*", INDEX))):
        folder = os.path.dirname(path)
        if not os.path.exists(path):
            problems.append(f"{path}: missing")
            continue
        doc = load(path)
        outputs = doc.get("outputs", {})
        files = folder_files(folder) if folder != root else \
            [f for f in sorted(os.listdir(root)) if os.path.isfile(os.path.join(root, f)) and f != INDEX]
        problems += [f"{folder}/{f}: no record in {path}" for f in files if f not in outputs]
        problems += [f"{path}: a record of {f}, which does not exist" for f in outputs if f not in files]
        for f, rec in outputs.items():
            missing = [k for k in FIELDS if k not in rec]
            if missing:
                problems.append(f"{path}: the record of {f} lacks {', '.join(missing)}")
    return problems


# --- a measuring stage's record (on the GPU) ------------------------------------------------------

def nvidia_smi():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,uuid,driver_version,clocks.sm",
                              "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=30).stdout
        name, uuid, driver, clock = [x.strip() for x in out.splitlines()[0].split(",")]
        return {"gpu": name, "gpu_uuid": uuid, "driver": driver, "sm_clock_mhz": float(clock)}
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        return {}


def record_stage(folder, stage, outputs, command, run_file):
    """After stage `stage` of a measuring run wrote `outputs` into `folder`: their records (the GPU and
    its UUID, driver and clock from nvidia-smi now; the run's date, commit, CUDA and command) and the
    run in the folder's history."""
    doc = load_index(folder)
    run = load(run_file) if run_file else {}
    smi = nvidia_smi()
    clock = smi.get("sm_clock_mhz")
    source = ("nvidia-smi when the stage ended (the benchmarks record the clock under load in their own outputs "
              "where they read it)")
    if clock is None and run.get("sm_clock_mhz") is not None:  # recorded away from the GPU: the run's reading
        clock, source = run.get("sm_clock_mhz"), run.get("sm_clock_source") or "the run record's"
    base = record("measured", gpu=smi.get("gpu") or run.get("gpu"), gpu_uuid=smi.get("gpu_uuid") or run.get("gpu_uuid"),
                  driver=smi.get("driver") or run.get("driver"), cuda=run.get("cuda"),
                  sm_clock_mhz=clock, sm_clock_source=source,
                  date=run.get("date"), commit=run.get("commit"), command=command, stage=stage)
    for rel in outputs:
        if not os.path.exists(os.path.join(folder, rel)):
            raise InputError(f"{folder}/{rel}: stage {stage} was to write it, and it does not exist")
        doc["outputs"][rel] = dict(base)
    if run:
        history = [r for r in doc["runs"] if r.get("date") != run.get("date")]
        doc["runs"] = (history + [run])[-RUNS_KEPT:]
    doc["schema"] = SCHEMA
    doc["folder"] = folder
    write_json(os.path.join(folder, INDEX), doc)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    i = sub.add_parser("index")
    i.add_argument("root")
    c = sub.add_parser("check")
    c.add_argument("root")
    r = sub.add_parser("record")
    r.add_argument("folder")
    r.add_argument("--stage", required=True)
    r.add_argument("--outputs", required=True, help="comma-separated, relative to the folder")
    r.add_argument("--command", required=True)
    r.add_argument("--run", help="the measuring run's record (JSON: date, commit, cuda, command, gpu_uuid, stages)")
    a = ap.parse_args(argv[1:])
    if a.what == "index":
        index_all(a.root.rstrip("/"))
    elif a.what == "check":
        problems = check_all(a.root.rstrip("/"))
        for p in problems:
            print(p, file=sys.stderr)
        if problems:
            sys.exit(1)
        print("provenance_index: every output has its record")
    else:
        outputs = [o for o in a.outputs.split(",") if o]
        expanded = []
        for o in outputs:
            hits = sorted(os.path.relpath(p, a.folder) for p in glob.glob(os.path.join(a.folder, o)) if os.path.isfile(p))
            expanded += hits or [o]
        record_stage(a.folder.rstrip("/"), a.stage, expanded, a.command, a.run)


if __name__ == "__main__":
    try:
        main(sys.argv)
    except InputError as e:
        print(f"provenance_index: {e}", file=sys.stderr)
        sys.exit(2)
