#!/usr/bin/env python3
"""results.compare_bench_runs: scripts/compare_bench_runs.py on hand-written Google Benchmark JSON.

The median over runs (three runs: the middle one, not the mean), each variant's ratio to the first, the provenance it
starts with, a benchmark one variant lacks ("-"), the CSV form, and bad input (exit 2, one line, no output file).
usage: test_compare_bench_runs.py REPO
"""
import csv
import json
import os
import subprocess
import sys
import tempfile


def write_run(directory, variant, run, times):
    doc = {"context": {"gpu_name": "NVIDIA H200", "date": f"2026-11-28T00:0{run}:00+00:00",
                       "executable": f"exp/bin/{variant}/bench_adi"},
           "benchmarks": [{"name": f"{name}/iterations:30/manual_time", "run_type": "iteration", "real_time": t}
                          for name, t in times.items()]}
    with open(os.path.join(directory, f"bench-{variant}-{run}.json"), "w") as f:
        json.dump(doc, f)


def main():
    script = os.path.join(os.path.abspath(sys.argv[1]), "scripts", "compare_bench_runs.py")
    run = lambda *a: subprocess.run([sys.executable, script, *a], capture_output=True, text=True)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for r, (step, sweep) in enumerate([(100.0, 40.0), (130.0, 41.0), (101.0, 90.0)], start=1):
            write_run(tmp, "base", r, {"adi/fused/double/2048/step": step, "adi/fused/double/2048/sweep-x": sweep})
        for r, step in enumerate([80.0, 82.0], start=1):
            write_run(tmp, "new", r, {"adi/fused/double/2048/step": step})
        # A provenance sidecar beside a run (bench-V-N.provenance.json, as the probe folders keep them) is
        # not a run: it must be passed over, not refused as malformed benchmark JSON.
        with open(os.path.join(tmp, "bench-new-1.provenance.json"), "w") as f:
            json.dump({"gpu": "NVIDIA H200", "file": "bench-new-1.json"}, f)
        out_csv = os.path.join(tmp, "ab.csv")
        p = run(tmp, "base,new", "-o", out_csv)
        if p.returncode != 0:
            failures.append(f"good input: exit {p.returncode}: {p.stderr.strip()}")
        else:
            rows = {r[0]: r for r in csv.reader(open(out_csv))}
            step = rows.get("adi/fused/double/2048/step")
            if not step or abs(float(step[1]) - 101.0) > 1e-9:  # median of 100, 130, 101
                failures.append(f"base median of three runs: {step}")
            if not step or abs(float(step[2]) - 81.0) > 1e-9 or abs(float(step[3]) - 81.0 / 101.0) > 1e-12:
                failures.append(f"new median and ratio: {step}")
            sweep = rows.get("adi/fused/double/2048/sweep-x")
            if not sweep or sweep[2] != "" or sweep[3] != "":
                failures.append(f"a benchmark the second variant lacks: {sweep}")
        md = run(tmp, "base,new")
        if md.returncode != 0 or "| adi/fused/double/2048/sweep-x | 41.00 | - | - |" not in md.stdout:
            failures.append(f"markdown form: {md.stdout!r}")
        # Where the runs came from: each variant's context, and the run's provenance.json beside them.
        if "on NVIDIA H200 (CUDA driver" not in md.stdout or "provenance.json" in md.stdout:
            failures.append(f"context provenance without a provenance.json: {md.stdout!r}")
        with open(os.path.join(tmp, "provenance.json"), "w") as f:
            json.dump({"gpu": "NVIDIA H200", "gpu_uuid": "GPU-0000", "driver": "580.159.04", "git_commit": "abc1234",
                       "command": "bash probe.sh", "variants": {"new": "abc1234 + new.patch"}}, f)
        md = run(tmp, "base,new")
        for want in ("GPU-0000", "driver 580.159.04", "commit abc1234", "`bash probe.sh`", "`new`: abc1234 + new.patch"):
            if md.returncode != 0 or want not in md.stdout:
                failures.append(f"the run's provenance.json: {want!r} missing from {md.stdout!r}")
        with open(os.path.join(tmp, "provenance.json"), "w") as f:
            f.write("{")
        p = run(tmp, "base,new", "-o", os.path.join(tmp, "bad-provenance.md"))
        if p.returncode != 2 or len(p.stderr.strip().splitlines()) != 1 or os.path.exists(os.path.join(tmp, "bad-provenance.md")):
            failures.append(f"a malformed provenance.json: exit {p.returncode}, stderr {p.stderr!r}")
        os.remove(os.path.join(tmp, "provenance.json"))
        with open(os.path.join(tmp, "bench-broken-1.json"), "w") as f:
            f.write('{"benchmarks": [{"name": "x", ')  # cut off, as a binary that aborts leaves it
        with open(os.path.join(tmp, "bench-nameless-1.json"), "w") as f:
            json.dump({"benchmarks": [{"real_time": 1.0}, {"name": "y", "real_time": "fast"}]}, f)
        for args, what in ((("base,missing",), "no file of a variant"), (("base,broken",), "not JSON"),
                           (("base,nameless",), "a benchmark without a name or with a non-numeric time"),
                           (("base",), "one variant"), (("base,new", "--bogus"), "unknown option")):
            out = os.path.join(tmp, "bad.md")
            p = run(tmp, *args, "-o", out)
            lines = p.stderr.strip().splitlines()
            if p.returncode != 2 or len(lines) != 1 or os.path.exists(out):
                failures.append(f"{what}: exit {p.returncode}, stderr {p.stderr!r}, output written: {os.path.exists(out)}")
    for f in failures:
        print("FAIL:", f)
    print("results.compare_bench_runs:", "ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
