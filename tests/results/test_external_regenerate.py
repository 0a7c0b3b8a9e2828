#!/usr/bin/env python3
"""results.external_regenerate: the committed external tables are what `warpmodel validate --from` writes
from the committed measurements (external/profiles.json.xz, the corpus sweep, device.json, profiler-floor.json).

For every results/<gpu>/external/profiles.json.xz (with cubins.json.xz): the GPU folder's inputs are copied to a temporary
folder, `validate --from` runs there, and its external/launches.csv, apps.csv and summary.md must equal
the committed ones byte for byte; every launch row sits in its application's half of
scripts/external_suite.list, and a row of an application the file holds no profile of is an error. The
README's accuracy table leads with the external set's rows, and their counts, MAPE, share
under-predicted and mean signed error are the ones validation.json gives (launches >= 20 us).
usage: test_external_regenerate.py REPO WARPMODEL_BIN
"""
import csv
import json
import lzma
import os
import shutil
import subprocess
import sys
import tempfile

# profiler-floor.json where measured: validate --from reads the counter range's overhead from it (H.12b).
INPUTS = ["device.json", "validation-measurements.json.xz", "access-patterns.json.xz", "external/profiles.json.xz",
          "external/cubins.json.xz", "profiler-floor.json"]
TABLES = ["launches.csv", "apps.csv", "summary.md"]


def halves(repo):
    out = {}
    with open(os.path.join(repo, "scripts", "external_suite.list")) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if not line.startswith("#") and len(fields) == 7 and fields[0] != "name":
                out[fields[0]] = fields[5]
    return out


GPU_NAMES = {"h100-80gb-hbm3": "H100", "h200": "H200"}


def check_readme(repo, failures):
    """README.md's external rows (the first rows of its accuracy table) against validation.json."""
    with open(os.path.join(repo, "README.md")) as f:
        lines = [l for l in f.read().splitlines() if l.startswith("| H")]
    rows = [l for l in lines if "| external suites, " in l]
    if not lines or not rows or "held-out half" not in lines[0] or "| external suites, " not in lines[0]:
        failures.append("README.md: the accuracy table does not lead with the external set's held-out row")
    for gpu, name in GPU_NAMES.items():
        path = os.path.join(repo, "results", gpu, "validation.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            external = json.load(f).get("external")
        if not external:
            continue
        for half in ("held-out", "development"):
            a = (external.get(half) or {}).get("at_least_20us")
            label = f"| {name} | external suites, {half} half (distinct launches >= 20 us) |"
            row = next((l for l in rows if l.startswith(label)), None)
            if a is None:  # a half not measured on this GPU yet: no row for it
                if row is not None:
                    failures.append(f"README.md: row {label!r}, but {path} has no {half} figures")
                continue
            if row is None:
                failures.append(f"README.md: no row {label!r}")
                continue
            cells = [c.strip() for c in row.split("|")[1:-1]]
            want = [str(a["count"]), f"{a['mape_pct']:.1f} %"]
            if cells[2:4] != want:
                failures.append(f"README.md {half} row: {cells[2:4]}, validation.json gives {want}")
            words = f"{a['under_predicted_pct']:.1f} % under-predicted ({a['mean_signed_pct']:+.1f} %)"
            if not cells[5].startswith(words):
                failures.append(f"README.md {half} row: {cells[5]!r}, validation.json gives {words!r}")


def main():
    repo, binary = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    failures, checked = [], 0
    half = halves(repo)
    results = os.path.join(repo, "results")
    for gpu in sorted(os.listdir(results)):
        folder = os.path.join(results, gpu)
        if not os.path.exists(os.path.join(folder, "external", "profiles.json.xz")):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, gpu)
            for rel in INPUTS:
                if os.path.exists(os.path.join(folder, rel)):
                    os.makedirs(os.path.dirname(os.path.join(copy, rel)), exist_ok=True)
                    shutil.copy(os.path.join(folder, rel), os.path.join(copy, rel))
            run = subprocess.run([binary, "validate", "--from", copy], capture_output=True, text=True)
            if run.returncode != 0:
                failures.append(f"{gpu}: validate --from exit {run.returncode}: {run.stderr.strip()[-400:]}")
                continue
            for table in TABLES:
                committed, written = os.path.join(folder, "external", table), os.path.join(copy, "external", table)
                if not os.path.exists(committed):
                    failures.append(f"{committed}: not committed (validate --from writes it)")
                elif open(committed, "rb").read() != open(written, "rb").read():
                    failures.append(f"{committed}: differs from what validate --from writes (scripts/regenerate_results.sh)")
                checked += 1
        with lzma.open(os.path.join(folder, "external", "profiles.json.xz"), "rt") as f:
            profiled = {e["app"] for e in json.load(f)["applications"] if e.get("profile")}
        with open(os.path.join(folder, "external", "launches.csv"), newline="") as f:
            for n, row in enumerate(csv.DictReader(f), start=2):
                if half.get(row["app"]) != row["half"]:
                    failures.append(f"{gpu}/external/launches.csv:{n}: {row['app']} in {row['half']}, the list has "
                                    f"{half.get(row['app'])}")
                if row["app"] not in profiled:
                    failures.append(f"{gpu}/external/launches.csv:{n}: {row['app']} has no profile in profiles.json.xz")
    check_readme(repo, failures)
    for f in failures:
        print("FAIL:", f)
    if not checked and not failures:
        print("external_regenerate: no results/<gpu>/external/profiles.json.xz committed")
        return 1
    if not failures:
        print(f"external_regenerate: {checked} external tables are what validate --from writes from the committed profiles")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
