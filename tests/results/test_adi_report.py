#!/usr/bin/env python3
"""results.adi_report: scripts/adi_report.py's `step-graph` column on a small hand-written bench_adi JSON.

The step through CUDA graphs (benchmark `step-graph`, GpuSolver::run) shows in the fused variants' table beside
the step where it was measured and as "-" where not (runs of bench_adi before it, e.g. the H100's), and
it is never counted as one of a step's kernels: adding it changes no other line of the report. Each
fused variant (fused, fused-cluster) gets its verdict line, or a line saying the JSON lacks it.
usage: test_adi_report.py REPO
"""
import json
import os
import subprocess
import sys
import tempfile

STATE_BYTES = 8 * 2048 * 2048 * 8


def bench(name, median_us, effective_bytes, step=False):
    b = {"name": name, "run_type": "iteration", "iterations": 30, "real_time": median_us, "time_unit": "us",
         "median_s": median_us * 1e-6, "min_s": median_us * 0.99e-6, "effective_bytes": effective_bytes}
    if step:
        b["state_bytes"] = STATE_BYTES
    return b


def document(with_partitioned_graph):
    a = 2048 * 2048 * 8  # one array
    rows = [bench("copy/d2d/1024MiB", 500.0, 2.0 * (1 << 30)),
            bench("adi/fused/double/2048/step", 327.0, 22 * a, step=True),
            bench("adi/fused/double/2048/step-graph", 315.0, 22 * a, step=True),
            bench("adi/fused/double/2048/sweep-x", 126.0, 7 * a),
            bench("adi/fused/double/2048/sweep-y", 125.0, 7 * a),
            bench("adi/partitioned/double/2048/step", 640.0, 40 * a, step=True),
            bench("adi/partitioned/double/2048/build-x", 60.0, 10 * a),
            bench("adi/partitioned/double/2048/solve-x", 170.0, 7 * a),
            bench("adi/partitioned/double/2048/build-y", 60.0, 10 * a),
            bench("adi/partitioned/double/2048/solve-y", 170.0, 7 * a)]
    if with_partitioned_graph:
        rows.append(bench("adi/partitioned/double/2048/step-graph", 600.0, 40 * a, step=True))
    return {"context": {"gpu_name": "Test GPU", "git_commit": "0000000"}, "benchmarks": rows}


def report(repo, tmp, name, doc):
    folder = os.path.join(tmp, name)
    os.makedirs(folder)
    path = os.path.join(folder, "adi.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    r = subprocess.run([sys.executable, os.path.join(repo, "scripts", "adi_report.py"), "--adi", path, "--out", folder],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"adi_report.py failed on {name}: {r.stderr.strip()}")
    with open(os.path.join(folder, "adi.md")) as f:
        return f.read().splitlines()


def table_row(lines, variant):
    for line in lines:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) >= 5 and cells[0] == "2048^2" and cells[1] == "double" and cells[2] == variant:
            return cells
    return None


def main():
    repo = os.path.abspath(sys.argv[1])
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        without = report(repo, tmp, "without", document(False))
        with_graph = report(repo, tmp, "with", document(True))

        header = next((l for l in without if l.startswith("| size | precision | variant |")), "")
        if "step, CUDA graph (us)" not in header:
            failures.append(f"the fused variants' table header without the graph column: {header!r}")
        fused = table_row(without, "fused")
        if not fused or fused[3] != "327.0" or fused[4] != "315.0":
            failures.append(f"fused row: {fused}, want step 327.0 and graph 315.0")
        part = table_row(without, "partitioned")
        if not part or part[4] != "-":
            failures.append(f"partitioned row without step-graph: {part}, want '-' in the graph column")
        part = table_row(with_graph, "partitioned")
        if not part or part[4] != "600.0":
            failures.append(f"partitioned row with step-graph: {part}, want 600.0 in the graph column")

        verdict = next((l for l in without if l.startswith("- **fused, 2048^2 double:")), "")
        if "through CUDA graphs (`GpuSolver::run`) 315.0 us per step (also above the target)" not in verdict:
            failures.append(f"the step target's verdict does not give the graph step: {verdict!r}")

        # Each fused variant gets its verdict: fused-cluster, absent from this JSON, is said to be so
        # (the H100's adi.json predates it); present, it gets the same bold line as fused.
        missing = next((l for l in without if l.startswith("- fused-cluster, 2048^2 double:")), "")
        if "not in this adi.json (bench_adi of commit 0000000" not in missing:
            failures.append(f"no line saying fused-cluster was not measured: {missing!r}")
        doc = document(False)
        doc["benchmarks"].append(bench("adi/fused-cluster/double/2048/step", 300.0, 14 * 2048 * 2048 * 8, step=True))
        cluster = report(repo, tmp, "cluster", doc)
        verdict = next((l for l in cluster if l.startswith("- **fused-cluster, 2048^2 double: 300.0 us per step**")), "")
        if "target <= 250 us: NOT met" not in verdict:
            failures.append(f"fused-cluster's verdict: {verdict!r}")
        if any(l.startswith("- fused-cluster, 2048^2 double: not in") for l in cluster):
            failures.append("fused-cluster measured, yet said not to be")
        row = table_row(cluster, "fused-cluster")
        if not row or row[3] != "300.0" or row[4] != "-":
            failures.append(f"fused-cluster row: {row}, want step 300.0 and '-' in the graph column")

        # The graph row is a step, not a kernel of one: nothing else in the report may move.
        changed = [(a, b) for a, b in zip(without, with_graph) if a != b]
        extra = with_graph[len(without):] if len(with_graph) > len(without) else []
        for a, b in changed:
            if not (table_row([b], "partitioned") or b.startswith("| step-graph") or b.startswith("| kernel")):
                failures.append(f"a line changed by the partitioned step-graph: {a!r} -> {b!r}")
        if extra or len(with_graph) != len(without):
            failures.append(f"the report grew by {len(with_graph) - len(without)} lines with a step-graph row")
        if not any(l.startswith("| step-graph") for l in without):
            failures.append("the per-size table has no step-graph row")

    if failures:
        print("\n".join(failures))
        return 1
    print("results.adi_report: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
