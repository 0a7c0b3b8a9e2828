#!/usr/bin/env python3
"""results.external_report: scripts/external_report.py on a hand-made work folder.

Four applications over both halves (one ran fully, one ran with a kernel launched at two shapes and
repeated, one whose APP exited non-zero, one that did not build): launches.csv groups repeated launches
into distinct ones (median times, the error of the medians), apps.csv gives each application's status;
summary.md counts them by half and splits the statistics at 20 us; `--from` makes the same summary.md
bytes from launches.csv and apps.csv alone; an application without a work folder keeps its earlier
rows. The provenance columns of a launch come from its predict.csv's own columns, else the application's
profile.json "provenance", else the run record given with --run (the date of the application's run, the
`warpmodel profile` command of its list line); an application with launches and none of these is an
error naming it; an application built and never run takes the run record's reason. The committed
scripts/external_suite.list still holds the split its header's rule gives. Bad input: exit 2, one line,
nothing written.
usage: test_external_report.py REPO
"""
import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

PREDICT = ["kernel", "mangled", "launches", "launch_indices", "grid", "block", "measured_us", "total_measured_us",
           "predicted_us", "error_pct", "bound", "best_block", "best_grid", "best_predicted_us", "gain_pct",
           "static_fields", "note", "gpu", "driver", "cuda", "sm_clock_mhz", "measured_date", "measured_commit",
           "measurement_command"]
PROVENANCE = ["gpu", "driver", "cuda", "sm_clock_mhz", "measured_date", "measured_commit", "measurement_command"]
# predict-app --format csv as it writes it: no provenance columns.
PREDICT_APP = [c for c in PREDICT if c not in PROVENANCE]
LIST_HEADER = "name\tsuite\tfolder\tbuild\trun\thalf\tprofile_options"


def predict_row(index, kernel, grid, block, measured, predicted, bound, work):
    return {"kernel": kernel, "mangled": "_Z" + kernel, "launches": "1", "launch_indices": str(index), "grid": grid,
            "block": block, "measured_us": str(measured), "total_measured_us": str(measured),
            "predicted_us": "" if predicted is None else str(predicted), "error_pct": "", "bound": bound,
            "best_block": "", "best_grid": "", "best_predicted_us": "", "gain_pct": "", "static_fields": "",
            "note": "" if predicted is not None else "kernel not in the SASS", "gpu": "NVIDIA H100 80GB HBM3",
            "driver": "580.1", "cuda": "13.0", "sm_clock_mhz": "1755", "measured_date": "2026-01-02T03:04:05Z",
            "measured_commit": "abc1234",
            "measurement_command": f"warpmodel profile -o {work}/x/profile -- bash -c ./main 3"}


def write_app(work, name, status, rows, columns=PREDICT):
    os.makedirs(os.path.join(work, name), exist_ok=True)
    with open(os.path.join(work, name, "status.txt"), "w") as f:
        f.write("".join(f"{k}\t{v}\n" for k, v in status.items()))
    if rows is not None:
        with open(os.path.join(work, name, "predict.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, columns, lineterminator="\n", extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def run(script, *args):
    return subprocess.run([sys.executable, script] + list(args), capture_output=True, text=True)


def check_committed_split(repo, failures):
    """The committed list's halves are the ones its header's rule gives (seed, SHA-256, alternate)."""
    path = os.path.join(repo, "scripts", "external_suite.list")
    seed, apps = None, []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                if "(seed " in line:
                    seed = line.split("(seed ", 1)[1].split(")")[0]
                continue
            fields = line.rstrip("\n").split("\t")
            if fields[0] != "name" and len(fields) == 7:
                apps.append(fields)
    if seed is None:
        failures.append(f"{path}: no seed in the header")
        return
    for suite in {a[1] for a in apps}:
        names = sorted(a[0] for a in apps if a[1] == suite)
        order = sorted(names, key=lambda n: hashlib.sha256(f"{seed}:{n}".encode()).hexdigest())
        want = {n: ("development" if i % 2 == 0 else "held-out") for i, n in enumerate(order)}
        for a in apps:
            if a[1] == suite and a[5] != want[a[0]]:
                failures.append(f"{path}: {a[0]} is in {a[5]}, the split rule puts it in {want[a[0]]}")
    if len(apps) < 60:
        failures.append(f"{path}: {len(apps)} applications, the set has at least 60")


def check_provenance_paths(script, tmp, failures):
    """The three sources of a launch's provenance columns, in order, and the error without any."""
    work, out = os.path.join(tmp, "prov", "external", ".work"), os.path.join(tmp, "prov", "external")
    lst = os.path.join(tmp, "prov.list")
    with open(lst, "w") as f:
        f.write("#   hecbench  https://github.com/zjin-lcf/HeCBench  commit 1111111  (src)\n" + LIST_HEADER + "\n"
                "own\thecbench\thecbench/src/own-cuda\tmake\t./main 1\tdevelopment\t-\n"
                "prof\thecbench\thecbench/src/prof-cuda\tmake\t./main 2\theld-out\t-\n"
                "rec\thecbench\thecbench/src/rec-cuda\tmake\t./main 'a b' 3\theld-out\t--launch-count 9\n"
                "idle\thecbench\thecbench/src/idle-cuda\tmake\t./main 4\tdevelopment\t-\n")
    ok = {"build_exit": "0", "build_seconds": "1", "build_reason": "", "run_exit": "0", "run_seconds": "2",
          "run_reason": "", "run_date": "2026-03-04T05:06:07Z", "predict_exit": "0"}
    # own: predict.csv with its own provenance columns (they win over profile.json's).
    write_app(work, "own", ok, [predict_row(0, "a", "8", "32", 30.0, 33.0, "issue", work)])
    # prof: predict-app's columns only; profile.json's provenance (a clock NVML did not read: 0).
    write_app(work, "prof", ok, [predict_row(0, "b", "16", "64", 50.0, 40.0, "dram bandwidth", work)], PREDICT_APP)
    gpu_work = "/home/gpu/repo/results/x/external/.work"
    profile = {"schema": "warpmodel.profile/1", "provenance": {
        "gpu": "NVIDIA H100 80GB HBM3", "driver": "580.9", "cuda": "13000", "sm_clock_mhz": 0.0, "sm_clock_mhz_after": 0.0,
        "date": "2026-03-04T05:07:00Z", "commit": "def5678",
        "command": f"warpmodel profile -o {gpu_work}/prof/profile -- bash -c './main 2'"}}
    for name in ("own", "prof"):
        with open(os.path.join(work, name, "profile.json"), "w") as f:
            json.dump(profile, f)
    # rec: predict-app's columns only and no profile.json: the run record's.
    write_app(work, "rec", dict(ok, run_date="2026-03-04T05:08:09Z"),
              [predict_row(0, "c", "4", "128", 25.0, 20.0, "l2 bandwidth", work)], PREDICT_APP)
    # idle: built, never run (the calls stopped before its turn).
    write_app(work, "idle", {"build_exit": "0", "build_seconds": "1", "build_reason": ""}, None)

    r = run(script, "--work", work, "--list", lst, "--out", out)
    if r.returncode != 2 or "rec" not in r.stderr or len(r.stderr.strip().splitlines()) != 1:
        failures.append(f"no --run: exit {r.returncode}, stderr {r.stderr.strip()!r}; want exit 2 naming rec")
    if any(os.path.exists(os.path.join(out, f)) for f in ("launches.csv", "apps.csv", "summary.md")):
        failures.append("no --run: wrote tables on an application without provenance")

    record = os.path.join(tmp, "run.json")
    with open(record, "w") as f:
        json.dump({"gpu": "NVIDIA H100 80GB HBM3", "gpu_uuid": "GPU-1", "driver": "580.7", "cuda": "13.0",
                   "commit": "0abcdef", "date": "2026-03-04T05:00:00Z", "sm_clock_mhz": 345.0,
                   "not_run_reason": "the device time ran out"}, f)
    r = run(script, "--work", work, "--list", lst, "--out", out, "--run", record)
    if r.returncode != 0:
        failures.append(f"--run: exit {r.returncode}: {r.stderr.strip()}")
        return
    got = {l["app"]: [l[c] for c in PROVENANCE] for l in read(os.path.join(out, "launches.csv"))}
    want = {"own": ["NVIDIA H100 80GB HBM3", "580.1", "13.0", "1755", "2026-01-02T03:04:05Z", "abc1234",
                    "warpmodel profile -o .work/x/profile -- bash -c ./main 3"],
            "prof": ["NVIDIA H100 80GB HBM3", "580.9", "13.0", "not recorded", "2026-03-04T05:07:00Z", "def5678",
                     "warpmodel profile -o .work/prof/profile -- bash -c './main 2'"],
            "rec": ["NVIDIA H100 80GB HBM3", "580.7", "13.0", "not recorded", "2026-03-04T05:08:09Z", "0abcdef",
                    "warpmodel profile -o .work/rec/profile --launch-count 9 -- bash -c './main '\"'\"'a b'\"'\"' 3'"]}
    for name, columns in want.items():
        if got.get(name) != columns:
            failures.append(f"provenance of {name}: {got.get(name)}, want {columns}")
    apps = {a["app"]: a for a in read(os.path.join(out, "apps.csv"))}
    if (apps.get("idle", {}).get("status"), apps.get("idle", {}).get("reason")) != ("not run", "the device time ran out"):
        failures.append(f"apps.csv idle: {apps.get('idle', {}).get('status')}: {apps.get('idle', {}).get('reason')}")
    with open(os.path.join(out, "summary.md")) as f:
        summary = f.read()
    for needle in ("| development | 2 | 2 | 1 | 0 |", "- idle (hecbench, development): not run: the device time ran out",
                   "580.9, CUDA 13.0, SM clock not recorded, warpmodel commit def5678",
                   "580.1, CUDA 13.0, SM clock 1755 MHz, warpmodel commit abc1234"):
        if needle not in summary:
            failures.append(f"summary.md (provenance paths) lacks {needle!r}")
    again = os.path.join(tmp, "prov-again")
    r = run(script, "--from", out, "--out", again)
    if r.returncode != 0 or open(os.path.join(again, "summary.md")).read() != summary:
        failures.append(f"--from of the provenance paths made a different summary.md (exit {r.returncode})")
    # --run belongs to --work.
    r = run(script, "--from", out, "--run", record)
    if r.returncode != 2:
        failures.append(f"--from with --run: exit {r.returncode}, want 2")


def main():
    repo = os.path.abspath(sys.argv[1])
    script = os.path.join(repo, "scripts", "external_report.py")
    failures = []
    check_committed_split(repo, failures)
    with tempfile.TemporaryDirectory() as tmp:
        work, out = os.path.join(tmp, "external", ".work"), os.path.join(tmp, "external")
        lst = os.path.join(tmp, "suite.list")
        with open(lst, "w") as f:
            f.write("# a test list\n#   hecbench  https://github.com/zjin-lcf/HeCBench  commit 1111111  (src)\n"
                    "#   rodinia   https://github.com/yuhc/gpu-rodinia   commit 2222222  (cuda)\n" + LIST_HEADER + "\n"
                    "alpha\thecbench\thecbench/src/alpha-cuda\tmake ARCH=sm_90\t./main 3\tdevelopment\t-\n"
                    "beta\trodinia\trodinia/cuda/beta\tnvcc -O3 -arch=sm_90 b.cu -o b\t./b 10\theld-out\t--launch-count 9\n"
                    "gamma\thecbench\thecbench/src/gamma-cuda\tmake ARCH=sm_90\t./main 1\theld-out\t-\n"
                    "delta\thecbench\thecbench/src/delta-cuda\tmake ARCH=sm_90\t./main 2\tdevelopment\t-\n")
        ok = {"build_exit": "0", "build_seconds": "4", "build_reason": "", "run_exit": "0", "run_seconds": "7",
              "run_reason": "", "predict_exit": "0"}
        # alpha: k at one shape launched three times (median 100 measured, 110 predicted: +10 %), a short one.
        write_app(work, "alpha", ok, [predict_row(0, "k", "1024", "256", 90.0, 120.0, "dram bandwidth", work),
                                      predict_row(1, "k", "1024", "256", 100.0, 110.0, "dram bandwidth", work),
                                      predict_row(2, "k", "1024", "256", 130.0, 100.0, "issue", work),
                                      predict_row(3, "tiny", "1", "32", 5.0, 4.0, "memory latency", work)])
        # beta: one kernel at two grids (two distinct launches), one launch without a prediction.
        write_app(work, "beta", ok, [predict_row(0, "step", "64x64", "16x16", 40.0, 30.0, "l2 bandwidth", work),
                                     predict_row(1, "step", "32x64", "16x16", 25.0, 30.0, "l2 bandwidth", work),
                                     predict_row(2, "lib", "8", "128", 50.0, None, "", work)])
        # gamma: APP exited non-zero after its launches were profiled: kept, status "app error".
        write_app(work, "gamma", dict(ok, run_exit="5", run_reason="profile exit 5: APP exited with status 1"),
                  [predict_row(0, "g", "4", "64", 200.0, 150.0, "issue", work)])
        # delta: did not build.
        write_app(work, "delta", {"build_exit": "2", "build_seconds": "1", "build_reason": "build exit 2: error: x"}, None)

        r = run(script, "--work", work, "--list", lst, "--out", out)
        if r.returncode != 0:
            failures.append(f"work mode exit {r.returncode}: {r.stderr.strip()}")
        launches = read(os.path.join(out, "launches.csv"))
        got = {(l["app"], l["kernel"], l["grid"]): l for l in launches}
        want = {("alpha", "k", "1024"): ("3", "100.000", "110.000", "10.00", "dram bandwidth"),
                ("alpha", "tiny", "1"): ("1", "5.000", "4.000", "-20.00", "memory latency"),
                ("beta", "step", "64x64"): ("1", "40.000", "30.000", "-25.00", "l2 bandwidth"),
                ("beta", "step", "32x64"): ("1", "25.000", "30.000", "20.00", "l2 bandwidth"),
                ("beta", "lib", "8"): ("1", "50.000", "", "", ""),
                ("gamma", "g", "4"): ("1", "200.000", "150.000", "-25.00", "issue")}
        if set(got) != set(want):
            failures.append(f"distinct launches {sorted(got)}, want {sorted(want)}")
        for key, (n, m, p, e, b) in want.items():
            l = got.get(key)
            if l and (l["launches"], l["measured_us"], l["predicted_us"], l["error_pct"], l["bound"]) != (n, m, p, e, b):
                failures.append(f"{key}: {l['launches']} {l['measured_us']} {l['predicted_us']} {l['error_pct']} "
                                f"{l['bound']}, want {n} {m} {p} {e} {b}")
        if launches and (launches[0]["half"], launches[0]["gpu"]) != ("development", "NVIDIA H100 80GB HBM3"):
            failures.append(f"first row's half and gpu {launches[0]['half']}, {launches[0]['gpu']}")
        if any(work in l["measurement_command"] for l in launches):
            failures.append("measurement_command keeps the work folder's absolute path")
        apps = {a["app"]: a for a in read(os.path.join(out, "apps.csv"))}
        for name, status, distinct in (("alpha", "ok", "2"), ("beta", "ok", "3"), ("gamma", "app error", "1"),
                                       ("delta", "build failed", "")):
            a = apps.get(name, {})
            if (a.get("status"), a.get("distinct_launches")) != (status, distinct):
                failures.append(f"apps.csv {name}: {a.get('status')}, {a.get('distinct_launches')} distinct; want {status}, {distinct}")
        if apps.get("beta", {}).get("repository_commit") != "2222222" or apps.get("beta", {}).get("profile_options") != "--launch-count 9":
            failures.append(f"apps.csv beta: commit {apps.get('beta', {}).get('repository_commit')}, options "
                            f"{apps.get('beta', {}).get('profile_options')}")
        with open(os.path.join(out, "summary.md")) as f:
            summary = f.read()
        # >= 20 us, development: alpha's k (+10 %); held-out: beta's two (-25, +20) and gamma's (-25).
        for needle in ("| development | 2 | 1 | 1 | 1 | 2 | 1 | 1 | 0 |",      # listed, built, ran, failed, ...
                       "| held-out | 2 | 2 | 2 | 0 | 4 | 4 | 0 | 1 |",
                       "| >= 20 us | development | 1 | 10.0 % | 10.0 % | 100.0 % | 100.0 % | 0.0 % | +10.0 % |",
                       "| >= 20 us | held-out | 3 | 23.3 % | 25.0 % | 0.0 % | 100.0 % | 66.7 % | -10.0 % |",
                       "| < 20 us | development | 1 | 20.0 % | 20.0 % | 0.0 % | 100.0 % | 100.0 % | -20.0 % |",
                       "- delta (hecbench, development): build failed: build exit 2: error: x",
                       "- gamma (hecbench, held-out): app error: profile exit 5",
                       "| l2 bandwidth | 0 | - | - | 2 | 22.5 % | -2.5 % |",
                       "https://github.com/zjin-lcf/HeCBench at 1111111"):
            if needle not in summary:
                failures.append(f"summary.md lacks {needle!r}")
        again = os.path.join(tmp, "again")
        r = run(script, "--from", out, "--out", again)
        if r.returncode != 0:
            failures.append(f"--from exit {r.returncode}: {r.stderr.strip()}")
        elif open(os.path.join(again, "summary.md")).read() != summary:
            failures.append("--from made a different summary.md")

        # A run split over two calls: alpha's work folder gone, its earlier rows kept.
        shutil.rmtree(os.path.join(work, "alpha"))
        before = [l for l in launches if l["app"] == "alpha"]
        r = run(script, "--work", work, "--list", lst, "--out", out)
        kept = [l for l in read(os.path.join(out, "launches.csv")) if l["app"] == "alpha"]
        if r.returncode != 0 or kept != before:
            failures.append(f"earlier rows of alpha not kept (exit {r.returncode}: {r.stderr.strip()})")

        check_provenance_paths(script, tmp, failures)

        # Bad input: exit 2, one line, nothing written.
        bad = os.path.join(tmp, "bad")
        os.makedirs(bad)
        with open(os.path.join(bad, "launches.csv"), "w") as f:
            f.write("app,suite\nx,hecbench\n")
        shutil.copy(os.path.join(out, "apps.csv"), bad)
        cases = [("--from", bad), ("--work", work, "--list", os.path.join(tmp, "missing.list"), "--out", bad),
                 ("--work", os.path.join(tmp, "nowhere"), "--list", lst, "--out", bad), ()]
        for args in cases:
            r = run(script, *args)
            if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1:
                failures.append(f"{args}: exit {r.returncode}, stderr {r.stderr.strip()!r}; want exit 2 and one line")
            if os.path.exists(os.path.join(bad, "summary.md")):
                failures.append(f"{args}: wrote summary.md on bad input")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("external_report: grouping, statuses, provenance paths, summary, --from and the committed split "
              "are as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
