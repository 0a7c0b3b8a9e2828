#!/usr/bin/env python3
"""results.fwi_report: scripts/fwi_report.py on hand-written run, profile and device JSON.

Without a run it says that nothing is measured and shows only the study's column; with a run the
speedups are over the run's own original (2.000x for half the time), the GTX 970 column is the
study's, and each phase sits against the roof from the profile's DRAM bytes x the run's calls over the
kernel time (100 MB in 0.1 s at a 2000 GB/s roof: 1 GB/s, 0.1 %); a kernel without DRAM bytes is named;
with predict-app's JSON (--predicted) each variant's measured energy stands beside E.1 at the run's time
(100 W x 0.05 s + 2 x 1000 calls x (1 mJ - 100 W x 5 us) = 6 J against 10 J measured: -40.0 %), a
variant whose kernels have no prediction is named; the same launches profiled with the model's metric
set (--energy-profile, predicted at 2 mJ) take the place of the study's set's whatever the order
(5 J + 2 x 1000 x 1.5 mJ = 8 J: -20.0 %); bad input exits 2 with one line.
usage: test_fwi_report.py REPO
"""
import json
import os
import subprocess
import sys
import tempfile


def variant(name, seconds, kernels):
    return {"variant": name, "phase": name, "inversion_seconds": {"median": seconds, "runs": [seconds]},
            "gpu_utilisation": 0.5, "device_bytes_peak": 3 * 2**20, "check": {"passed": True},
            "kernels": [{"name": k, "calls": c, "total_s": t, "mean_s": t / c, "median_s": t / c, "share": 0.5}
                        for k, c, t in kernels]}


RUN = {"schema": "warpmodel.fwi-gpu-run/1", "command": "warpmodel run-fwi --variant original,fused -o run.json",
       "provenance": {"gpu": "Test GPU", "date": "2025-01-01T00:00:00Z", "commit": "abc1234", "driver": "1.0",
                      "command": "warpmodel run-fwi --variant original,fused -o run.json"},
       "experiment": {"nx": 210, "nz": 68, "nt": 625, "source_columns": [37, 71, 105, 139, 173]},
       "options": {"iterations": 2},
       "variants": [variant("original", 2.0, [("PSI", 1000, 0.05), ("Propagator_half", 1000, 0.05)]),
                    variant("fused", 1.0, [("Prop_psi_sh", 1000, 0.05), ("Residual", 5, 0.05)])]}

ENERGY = {"region_joules": {"mean": 10.0, "half_width": 0.1}, "region_seconds": {"mean": 0.05, "half_width": 0.001}}
for v in RUN["variants"]:
    v["energy"] = ENERGY

PROFILE = {"schema": "warpmodel.profile/1", "workload": "fwi variant=original,fused size=210x68 nt=625 shots=5",
           "launches": [{"label": f"{v} {k}", "launch_index": i,
                         "metrics": {"dram__bytes_read.sum": b / 2, "dram__bytes_write.sum": b / 2},
                         "derived": {"achieved_occupancy": 0.5, "gld_transactions": 1234}}
                        for i, (v, k, b) in enumerate([("original", "PSI", 50e3), ("original", "Propagator_half", 50e3),
                                                        ("fused", "Prop_psi_sh", 100e3)])]}

DEVICE = {"schema": "warpmodel.device/1", "bandwidth_gbs": {"dram_copy": 2000.0}, "energy": {"static_w": 100.0}}


def predicted(profile_path, mj=1.0):
    return {"profile": profile_path,
            "rows": [{"launch_indices": [i], "predicted_energy_mj": mj, "predicted_us": 5.0} for i in (0, 1)]}


def run(repo, args):
    return subprocess.run([sys.executable, os.path.join(repo, "scripts", "fwi_report.py")] + args,
                          capture_output=True, text=True)


def main():
    repo = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, doc in (("run.json", RUN), ("profile.json", PROFILE), ("device.json", DEVICE)):
            paths[name] = os.path.join(tmp, name)
            with open(paths[name], "w") as f:
                json.dump(doc, f)
        paths["predicted.json"] = os.path.join(tmp, "predicted.json")
        with open(paths["predicted.json"], "w") as f:
            json.dump(predicted(paths["profile.json"]), f)
        paths["energy-profile.json"] = os.path.join(tmp, "energy-profile.json")
        with open(paths["energy-profile.json"], "w") as f:
            json.dump(PROFILE, f)
        paths["energy-predicted.json"] = os.path.join(tmp, "energy-predicted.json")
        with open(paths["energy-predicted.json"], "w") as f:
            json.dump(predicted(paths["energy-profile.json"], 2.0), f)
        r = run(repo, [])
        if r.returncode != 0 or "No measurement yet" not in r.stdout or "3.300x" not in r.stdout or "not measured" not in r.stdout:
            failures.append(f"no run: expected the study's column and 'No measurement yet', got {r.returncode}: {r.stdout[:300]} {r.stderr}")
        r = run(repo, ["--run", paths["run.json"], "--profile", paths["profile.json"], "--device", paths["device.json"],
                       "--out", tmp])
        if r.returncode != 0:
            failures.append(f"with a run: exit {r.returncode}: {r.stderr}")
        else:
            page = open(os.path.join(tmp, "fwi.md")).read()
            for expected in ("2.000x", "1.356x", "Test GPU, 210x68", "0.1 %", "no DRAM bytes for Residual",
                             "achieved_occupancy", "1234", "run.json"):
                if expected not in page:
                    failures.append(f"fwi.md lacks {expected!r}")
            rows = open(os.path.join(tmp, "fwi.csv")).read().splitlines()
            if len(rows) != 3 or not rows[2].startswith("Test GPU,210x68,fused,"):
                failures.append(f"fwi.csv: {rows}")
        r = run(repo, ["--run", paths["run.json"], "--profile", paths["profile.json"], "--predicted", paths["predicted.json"],
                       "--device", paths["device.json"]])
        if r.returncode != 0:
            failures.append(f"with predictions: exit {r.returncode}: {r.stderr}")
        else:
            for expected in ("| 10 ± 0.1 | 200 | 6 | -40.0 % |", "static 5 J, dynamic 1 J; counts: the study's metric set", "no prediction for Prop_psi_sh, Residual",
                             "MAPE 40.0 % over 1 variants, 1 under-predicted"):
                if expected not in r.stdout:
                    failures.append(f"with predictions: the page lacks {expected!r}")
        for order in ((paths["energy-predicted.json"], paths["predicted.json"]),
                      (paths["predicted.json"], paths["energy-predicted.json"])):
            r = run(repo, ["--run", paths["run.json"], "--profile", paths["profile.json"], "--energy-profile",
                           paths["energy-profile.json"], "--predicted", order[0], "--predicted", order[1],
                           "--device", paths["device.json"]])
            if r.returncode != 0:
                failures.append(f"with an energy profile: exit {r.returncode}: {r.stderr}")
            else:
                for expected in ("| 10 ± 0.1 | 200 | 8 | -20.0 % |", "dynamic 3 J; counts: the model's metric set"):
                    if expected not in r.stdout:
                        failures.append(f"with an energy profile ({os.path.basename(order[0])} first): the page lacks {expected!r}")
        for args, says in ((["--predicted", paths["predicted.json"]], "--predicted needs --device"),
                           (["--predicted", paths["predicted.json"], "--device", paths["device.json"]],
                            "which is not one of the --profile or --energy-profile files")):
            r = run(repo, ["--run", paths["run.json"]] + args)
            if r.returncode != 2 or says not in r.stderr or r.stderr.count("\n") != 1:
                failures.append(f"{args}: expected exit 2 and one line naming {says!r}, got {r.returncode}: {r.stderr}")
        bad = dict(RUN, schema="warpmodel.fwi-run/1")
        with open(paths["run.json"], "w") as f:
            json.dump(bad, f)
        r = run(repo, ["--run", paths["run.json"]])
        if r.returncode != 2 or "warpmodel.fwi-gpu-run/1" not in r.stderr or r.stderr.count("\n") != 1:
            failures.append(f"bad schema: expected exit 2 and one line, got {r.returncode}: {r.stderr}")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
