#!/usr/bin/env python3
"""Turn the ADI benchmark JSON (bench_adi, bench_tridiagonal, `warpmodel run-adi -o`) into
results/<gpu>/adi.md, adi.csv, tridiagonal.md and tridiagonal.csv. Every number in the outputs comes
from the JSON; files are written atomically (temporary file, then rename).

  scripts/adi_report.py --adi results/h200/adi.json --tridiagonal results/h200/tridiagonal.json \
      [--run results/h200/run_adi.json] [--provenance results/h200/adi_provenance.txt] \
      [--dram results/h200/adi-dram-double-2048.json [--dram ...]] --out results/h200

--dram: `warpmodel profile --kernel adi --variant ... --metrics dram__bytes_read.sum,dram__bytes_write.sum`
outputs (one precision and size each); the DRAM bytes of a step are the sum over its kernels' launches.
"""
import argparse
import csv
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_io import write_atomically  # noqa: E402
import report_io  # noqa: E402

PROGRAM = "adi_report.py"


def fail(msg):
    report_io.fail(PROGRAM, msg)


def load(path):
    return report_io.load(PROGRAM, path)


TARGET_FRACTION = 0.60  # the bandwidth target: a double step at 2048^2 at >= 60 % of the D2D copy bandwidth
# The step targets (H200, 2048^2 double, median step): <= 250 us (aim 150 us), state-only traffic >= 28 % of copy.
STEP_TARGET_US, STEP_AIM_US, STATE_TARGET_FRACTION = 250.0, 150.0, 0.28
STAGED = ("thread-per-line", "block-per-line", "partitioned")  # the variants before the fused ones
FUSED_HEADLINES = ("fused", "fused-cluster")  # the fused variants, each judged against the step targets


def csv_text(header, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def fmt(x, digits=3):
    if x is None:
        return "-"
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 1000:
        return f"{x:,.0f}"
    if a >= 100:
        return f"{x:.1f}"
    if a >= 10:
        return f"{x:.2f}"
    return f"{x:.{digits}g}"


def provenance(context, extra_path):
    keys = [("gpu_name", "GPU"), ("gpu_sm_count", "SMs"), ("gpu_max_sm_clock_mhz", "max SM clock (MHz, runtime)"),
            ("gpu_memory_clock_mhz", "memory clock (MHz, runtime)"), ("nvidia_smi_clocks", "nvidia-smi clocks.sm, clocks.max.sm, clocks.mem"),
            ("cuda_driver_version", "CUDA driver"), ("cuda_runtime_version", "CUDA runtime"),
            ("date", "date"), ("git_commit", "git commit"), ("command", "command")]
    lines = [f"- {label}: {context[k]}" for k, label in keys if k in context]
    if extra_path and os.path.exists(extra_path):
        with open(extra_path) as f:
            lines.append("- device run log (" + os.path.basename(extra_path) + "):\n\n```\n" + f.read().strip() + "\n```")
    return "\n".join(lines) + "\n"


def benchmarks(doc):
    """Iteration entries, with "name" cut to the registered name (Google Benchmark appends
    /iterations:N and /manual_time)."""
    out = []
    for b in doc.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        parts = [p for p in b["name"].split("/") if not p.startswith("iterations:") and p != "manual_time"]
        out.append(dict(b, name="/".join(parts)))
    return out


# ---------------------------------------------------------------------------------------------- ADI

def why_short(ks, n, copy_gbs, ctx):
    """Where the time of a step that misses the target goes, from the measured kernels."""
    out = []
    step = ks["step"]["median_s"]
    solves = [ks[k] for k in ("solve-x", "solve-y") if k in ks]
    others = [ks[k] for k in ks if k not in ("step", "step-graph", "solve-x", "solve-y")]
    if not solves:
        return out
    solve_t = sum(b["median_s"] for b in solves)
    solve_gbs = sum(b["effective_bytes"] for b in solves) / solve_t / 1e9
    other_t = sum(b["median_s"] for b in others)
    other_gbs = sum(b["effective_bytes"] for b in others) / other_t / 1e9 if other_t else None
    out.append(f"  - the two solves take {fmt(100 * solve_t / step)} % of the step at {fmt(solve_gbs)} GB/s "
               f"({fmt(100 * solve_gbs / copy_gbs)} % of copy); builds and transposes together run at "
               f"{fmt(other_gbs)} GB/s ({fmt(100 * other_gbs / copy_gbs)} % of copy)")
    need = ks["step"]["effective_bytes"] / (TARGET_FRACTION * copy_gbs * 1e9)
    left = (need - other_t) / len(solves)
    out.append(f"  - budget: at the target the step may take {fmt(need * 1e6)} us; builds and transposes alone take "
               f"{fmt(other_t * 1e6)} us, which leaves {fmt(left * 1e6)} us per solve "
               f"(measured: {fmt(solves[0]['median_s'] * 1e6)} us)")
    if not ctx.get("_label", "").startswith("thread-per-line"):
        return out  # the analysis below is of the thread-per-line solve
    per_row = solves[0]["median_s"] / n  # n/2 iterations forward + n/2 back, each one row from each end
    clock = float(ctx.get("gpu_max_sm_clock_mhz", 0)) * 1e6
    out.append(f"  - one solve: {fmt(per_row * 1e9)} ns per iteration (two rows, one from each end of the line)"
               + (f", {fmt(per_row * clock)} cycles at the {ctx['gpu_max_sm_clock_mhz']} MHz maximum SM clock" if clock else ""))
    out.append("  - why: thread-per-line has one thread per grid line, so n threads in all, a warp or two per SM "
               "(the blocks are narrowed to 8 lines so that every SM gets some). Each thread walks its line "
               "sequentially (from both ends at once, two chains of n/2 rows), and with so few warps the "
               "dependent FP64 chain (reciprocal, about ten dependent operations per row) and the instruction "
               "stream of a single warp, not DRAM bandwidth, set the time; the single-precision solve, with "
               "half the FP64 latency on the chain, is correspondingly faster. More SMs or bandwidth do not "
               "help; a faster step at this size needs more threads per line (block-per-line, which stops at "
               "1024 threads per block, or a partitioned/SPIKE solver), i.e. another algorithm than S1's")
    return out


def fused_section(kernels, copy_gbs, dram, ctx_commit="?"):
    """The step targets: per size and precision, the step of every variant, the fused step against the best
    of the variants before it, state-only bandwidth as a fraction of copy, DRAM bytes per step."""
    md = ["## A step near the memory limit (variants fused and fused-cluster)\n",
          f"Target (H200, 2048^2 double, median step): <= {STEP_TARGET_US:.0f} us (aim {STEP_AIM_US:.0f} us) and "
          f"state-only traffic >= {100 * STATE_TARGET_FRACTION:.0f} % of the copy bandwidth; every size and "
          "precision faster than the best variant before it (thread-per-line, block-per-line, partitioned). "
          "State-only traffic: the 8 arrays a step must move (268.4 MB at 2048^2 double) over the median step. "
          "DRAM bytes: `dram__bytes_read.sum + dram__bytes_write.sum` summed over the kernels of one step "
          "(CUPTI Range Profiler, `warpmodel profile --kernel adi`, kernel replay), where measured. "
          "Step, CUDA graph: the same step replayed two at a time as one CUDA graph (`GpuSolver::run`, no launch "
          "gaps; benchmark `step-graph`), where measured; the targets are judged on the step column.\n"]
    rows, verdicts = [], []
    for n in sorted({k[2] for k in kernels}):
        for precision in ("double", "single"):
            steps = {k[0]: v["step"] for k, v in kernels.items() if k[1] == precision and k[2] == n and "step" in v}
            graphs = {k[0]: v["step-graph"] for k, v in kernels.items()
                      if k[1] == precision and k[2] == n and "step-graph" in v}
            if not steps:
                continue
            staged = {label: st for label, st in steps.items() if label.split("/")[0] in STAGED}
            fused = {label: st for label, st in steps.items() if label.startswith("fused")}
            best_staged = min(staged.items(), key=lambda kv: kv[1]["median_s"]) if staged else None
            for label, st in sorted(steps.items(), key=lambda kv: kv[1]["median_s"]):
                t = st["median_s"]
                state_frac = st["state_bytes"] / t / 1e9 / copy_gbs if copy_gbs else None
                d = dram.get((label, precision, n))
                speedup = best_staged[1]["median_s"] / t if best_staged and label in fused else None
                g = graphs.get(label)
                rows.append([size_label(n), precision, label, fmt(t * 1e6),
                             fmt(g["median_s"] * 1e6) if g else "-",
                             fmt(100 * state_frac) if state_frac is not None else "-",
                             fmt(d[0] / 1e6) if d else "-",
                             fmt(d[0] / st["state_bytes"]) if d else "-",
                             fmt(speedup) + f" (vs {best_staged[0]})" if speedup else ""])
            if fused and best_staged:
                best_fused = min(fused.items(), key=lambda kv: kv[1]["median_s"])
                faster = best_fused[1]["median_s"] < best_staged[1]["median_s"]
                verdicts.append((size_label(n), precision, best_fused, best_staged, faster))
    md.append(table(["size", "precision", "variant", "step (us)", "step, CUDA graph (us)", "state-only % of copy",
                     "DRAM MB per step",
                     "DRAM / state bytes", "speed-up of fused"], rows))
    lines = []
    for size, precision, (fl, fst), (sl, sst), faster in verdicts:
        lines.append(f"- {size} {precision}: {fl} {fmt(fst['median_s'] * 1e6)} us, best before it {sl} "
                     f"{fmt(sst['median_s'] * 1e6)} us: {'faster' if faster else '**not faster**'}")
    for variant in FUSED_HEADLINES:
        key = next(((k, v) for k, v in kernels.items()
                    if k[0] == variant and k[1] == "double" and k[2] == (2048, 2048) and "step" in v), None)
        if not copy_gbs:
            continue
        if not key:
            lines.append(f"- {variant}, 2048^2 double: not in this adi.json (bench_adi of commit "
                         f"{str(ctx_commit)[:7]}, before the variant existed or without it)")
            continue
        st = key[1]["step"]
        t_us = st["median_s"] * 1e6
        graph_us = key[1]["step-graph"]["median_s"] * 1e6 if "step-graph" in key[1] else None
        frac = st["state_bytes"] / st["median_s"] / 1e9 / copy_gbs
        lines.append(f"- **{variant}, 2048^2 double: {fmt(t_us)} us per step** (target <= {STEP_TARGET_US:.0f} us: "
                     f"{'met' if t_us <= STEP_TARGET_US else 'NOT met'}; aim {STEP_AIM_US:.0f} us: "
                     f"{'met' if t_us <= STEP_AIM_US else 'not met'}); state-only traffic **{fmt(100 * frac)} % of "
                     f"copy** (target {100 * STATE_TARGET_FRACTION:.0f} %: {'met' if frac >= STATE_TARGET_FRACTION else 'NOT met'})"
                     + (f"; through CUDA graphs (`GpuSolver::run`) {fmt(graph_us)} us per step "
                        f"({'within' if graph_us <= STEP_TARGET_US else 'also above'} the target)"
                        if graph_us is not None else ""))
    md.append("\n".join(lines) + "\n")
    return md


def size_label(n):
    """(nx, ny) -> "2048^2" or "1536 x 2400"."""
    return f"{n[0]}^2" if n[0] == n[1] else f"{n[0]} x {n[1]}"


def dram_per_step(profiles):
    """{(label, precision, (nx, ny)): (bytes, launches)} from `warpmodel profile --kernel adi` outputs."""
    out = {}
    for doc in profiles:
        desc = doc.get("workload", "")
        fields = dict(f.split("=", 1) for f in desc.split() if "=" in f)
        if not desc.startswith("adi") or "precision" not in fields or "size" not in fields:
            fail(f"--dram: '{desc}' is not a `warpmodel profile --kernel adi` output")
        nx, ny = (int(v) for v in fields["size"].split("x"))
        labels = fields["variant"].split(",")
        for launch in doc.get("launches", []):
            m = launch.get("metrics", {})
            if "dram__bytes_read.sum" not in m or "dram__bytes_write.sum" not in m:
                fail(f"--dram: launch '{launch.get('label')}' lacks dram__bytes_read.sum / dram__bytes_write.sum")
            label = labels[0] if len(labels) == 1 else launch["label"].split(" ", 1)[0]
            key = (label, fields["precision"], (nx, ny))
            total, count = out.get(key, (0.0, 0))
            out[key] = (total + m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"], count + 1)
    return out


def merge_runs(docs):
    """One document from several bench_adi runs of the same GPU: a variant (or the copy) measured by
    a later run replaces that variant's benchmarks of the earlier runs; the context of the last run, with the earlier runs' provenance kept
    under "_earlier" (listed in the report with the benchmarks each one contributed)."""
    if len(docs) == 1:
        return docs[0]
    names = [d.get("context", {}).get("gpu_name") for d in docs]
    if len(set(names)) != 1:
        fail(f"--adi: runs of different GPUs ({', '.join(map(str, names))}) are not merged")
    def family(b):  # "adi/fused/c16/double/2048/step" -> "adi/fused"; "copy/d2d/..." -> "copy"
        parts = b["name"].split("/")
        return "/".join(parts[:2]) if parts[0] == "adi" else parts[0]

    by_name, source = {}, {}
    for i, d in enumerate(docs):
        # A variant a later run measured replaces all of that variant's earlier benchmarks (its
        # options included), so that no row mixes two versions of a kernel.
        for f in {family(b) for b in d.get("benchmarks", [])}:
            for name in [n for n in by_name if family(by_name[n]) == f]:
                del by_name[name], source[name]
        for b in d.get("benchmarks", []):
            by_name[b["name"]] = b
            source[b["name"]] = i
    ctx = dict(docs[-1].get("context", {}))
    ctx["_earlier"] = [(d.get("context", {}), sum(1 for v in source.values() if v == i))
                       for i, d in enumerate(docs[:-1])]
    ctx["_last_count"] = sum(1 for v in source.values() if v == len(docs) - 1)
    return {"context": ctx, "benchmarks": list(by_name.values())}


def adi_report(doc, run_doc, prov_path, dram_docs=()):
    ctx = doc.get("context", {})
    copies = {}
    kernels = {}  # (label, precision, (nx, ny)) -> {kernel: bench}
    for b in benchmarks(doc):
        parts = b["name"].split("/")
        if parts[0] == "copy":
            copies[parts[2]] = b
        elif parts[0] == "adi":
            # adi/<variant>[/<solver>]/<precision>/<n or NXxNY>/<kernel>
            kernel, size, precision = parts[-1], parts[-2], parts[-3]
            nx, _, ny = size.partition("x")
            n = (int(nx), int(ny or nx))
            label = "/".join(parts[1:-3])
            kernels.setdefault((label, precision, n), {})[kernel] = b
    if not kernels:
        fail("adi JSON: no adi/... benchmarks")
    copy = copies.get("1024MiB") or next(iter(copies.values()), None)
    copy_gbs = copy["effective_bytes"] / copy["median_s"] / 1e9 if copy else None

    csv_rows = []
    md = ["# ADI shallow-water solver: kernel times on the GPU\n",
          "Generated by `scripts/adi_report.py` from `adi.json` (`bench_adi`)"
          + (" and `run_adi.json` (`warpmodel run-adi`)" if run_doc else "") + "; do not edit by hand.\n",
          "Times are medians over the iterations of each benchmark (CUDA events; every kernel timed inside real "
          "steps, see `stencils/adi/bench/bench_adi.cpp`). Effective bandwidth = the arrays a kernel reads "
          "(each once) plus those it writes (each once), times n^2 elements, over its time; for the step, the "
          "sum over its kernels. The state-only figure counts the 8 arrays a step must move at least "
          "(reads zeta, bed, p, q^{n-1/2}, q^{n+1/2}; writes zeta, p, q).\n",
          "## Provenance\n", provenance(ctx, prov_path)]
    for earlier, count in ctx.get("_earlier", []):
        md.append(f"Merged with an earlier run on the same GPU, which gave the {count} benchmarks the run above "
                  f"did not repeat (the other {ctx['_last_count']} are the run above's):\n")
        md.append(provenance(earlier, None))

    dram = dram_per_step(dram_docs)
    md += fused_section(kernels, copy_gbs, dram, ctx.get("git_commit", "?"))
    md.append("## Target: a double-precision step at 2048^2 at >= 60 % of the device-to-device copy bandwidth\n")
    lines = []
    if copy:
        lines.append(f"- device-to-device copy (`cudaMemcpyAsync`, {copy['name'].split('/')[-1]}, read + write counted): "
                     f"**{fmt(copy_gbs)} GB/s** (median of {copy['iterations']})")
    for (label, precision, n), ks in sorted(kernels.items()):
        if precision != "double" or n != (2048, 2048) or "step" not in ks:
            continue
        st = ks["step"]
        gbs = st["effective_bytes"] / st["median_s"] / 1e9
        state_gbs = st["state_bytes"] / st["median_s"] / 1e9
        frac = gbs / copy_gbs if copy_gbs else None
        verdict = "met" if frac is not None and frac >= TARGET_FRACTION else "NOT met"
        lines.append(f"- {label}, double, 2048^2: step {fmt(st['median_s'] * 1e6)} us; "
                     f"{fmt(st['effective_bytes'] / 1e6)} MB effective -> **{fmt(gbs)} GB/s = "
                     f"{fmt(100 * frac if frac else None)} % of copy** (target {int(TARGET_FRACTION * 100)} %: {verdict}); "
                     f"state only {fmt(st['state_bytes'] / 1e6)} MB -> {fmt(state_gbs)} GB/s = "
                     f"{fmt(100 * state_gbs / copy_gbs if copy_gbs else None)} % of copy")
        if frac is not None and frac < TARGET_FRACTION:
            need = st["effective_bytes"] / (TARGET_FRACTION * copy_gbs * 1e9)
            lines.append(f"  - short by {fmt(100 * (TARGET_FRACTION - frac))} percentage points: the step would have "
                         f"to take {fmt(need * 1e6)} us instead of {fmt(st['median_s'] * 1e6)} us")
            lines += why_short(ks, n[0], copy_gbs, dict(ctx, _label=label))
    md.append("\n".join(lines) + "\n")

    order = ["build-x", "solve-x", "transpose-zeta-x2y", "transpose-p-x2y", "build-y", "solve-y",
             "transpose-zeta-y2x", "transpose-q-y2x", "sweep-x", "sweep-y", "step", "step-graph"]
    for n in sorted({k[2] for k in kernels}):
        configs = sorted(k for k in kernels if k[2] == n)
        md.append(f"## {n[0]} x {n[1]}\n")
        header = ["kernel"] + [f"{label} {precision}: us / GB/s" for (label, precision, _) in configs]
        rows = []
        for kernel in order:
            row = [kernel]
            for cfg in configs:
                b = kernels[cfg].get(kernel)
                if not b:
                    row.append("-")
                    continue
                gbs = b["effective_bytes"] / b["median_s"] / 1e9
                row.append(f"{fmt(b['median_s'] * 1e6)} / {fmt(gbs)}")
                csv_rows.append([cfg[0], cfg[1], n[0], n[1], kernel, b["median_s"] * 1e6, b["real_time"] if b.get("time_unit") == "us" else "",
                                 b["min_s"] * 1e6, b["effective_bytes"], gbs, gbs / copy_gbs if copy_gbs else ""])
            rows.append(row)
        md.append(table(header, rows))
        share = []
        for cfg in configs:
            ks = kernels[cfg]
            if "step" in ks:
                solve = sum(ks[k]["median_s"] for k in ("solve-x", "solve-y") if k in ks)
                build = sum(ks[k]["median_s"] for k in ("build-x", "build-y") if k in ks)
                trans = sum(ks[k]["median_s"] for k in order if k.startswith("transpose") and k in ks)
                tot = ks["step"]["median_s"]
                if cfg[0].startswith("fused"):
                    sweeps = [ks[k]["median_s"] for k in ("sweep-x", "sweep-y") if k in ks]
                    share.append(f"- {cfg[0]} {cfg[1]}: sweep-x {fmt(100 * sweeps[0] / tot)} %, sweep-y "
                                 f"{fmt(100 * sweeps[1] / tot)} % of the step (medians; the step is timed on its own)"
                                 if len(sweeps) == 2 else f"- {cfg[0]} {cfg[1]}: sweeps not measured")
                    continue
                share.append(f"- {cfg[0]} {cfg[1]}: builds {fmt(100 * build / tot)} %, solves {fmt(100 * solve / tot)} %, "
                             f"transposes {fmt(100 * trans / tot)} % of the step (medians; the step is timed on its own)")
        md.append("\n".join(share) + "\n")

    traffic = {k[len("traffic/"):]: v for k, v in ctx.items() if k.startswith("traffic/")}
    if traffic:
        md.append("## Arrays counted per kernel\n")
        rows = [[k.rsplit("/", 1)[0], k.rsplit("/", 1)[1], v] for k, v in sorted(traffic.items())]
        md.append(table(["variant", "kernel", "arrays (nx ny elements each)"], rows))

    if run_doc:
        md.append("## `warpmodel run-adi`\n")
        md.append(f"`{run_doc.get('command', 'warpmodel run-adi')}`: {run_doc['variant']}"
                  + (f"/{run_doc['solver']}" if 'solver' in run_doc else "")
                  + f", {run_doc['precision']}, {size_label((run_doc['n'], run_doc.get('ny', run_doc['n'])))}, "
                  f"{run_doc['steps']} steps on {run_doc['gpu']} "
                  "(mean and median over the steps; events around every kernel of every step)\n")
        rows = []
        for k in run_doc["kernels"]:
            rows.append([k["name"], fmt(k["mean_s"] * 1e6), fmt(k["median_s"] * 1e6),
                         fmt(k["effective_bytes"] / k["median_s"] / 1e9)])
        md.append(table(["kernel", "mean (us)", "median (us)", "effective GB/s"], rows))

    header = ["variant", "precision", "nx", "ny", "kernel", "median_us", "mean_us", "min_us", "effective_bytes",
              "effective_gbs", "fraction_of_copy"]
    return "\n".join(md), csv_text(header, csv_rows)


# -------------------------------------------------------------------------------------- tridiagonal

def tridiagonal_report(doc, prov_path):
    ctx = doc.get("context", {})
    configs = {}  # (precision, n, batch) -> {solver: bench}
    errors = []
    for b in benchmarks(doc):
        parts = b["name"].split("/")
        if parts[0] != "tridiagonal":
            continue
        precision, n, batch, solver = parts[1], int(parts[2].split(":")[1]), int(parts[3].split(":")[1]), parts[4]
        if b.get("error_occurred"):
            errors.append(f"- {b['name']}: {b.get('error_message', 'error')}")
            continue
        configs.setdefault((precision, n, batch), {})[solver] = b
    if not configs:
        fail("tridiagonal JSON: no tridiagonal/... benchmarks")
    solvers = ["thomas-interleaved", "pcr", "cr-pcr", "cusparse-gtsv2StridedBatch", "cusparse-gtsvInterleavedBatch"]

    md = ["# Batched tridiagonal solvers against cuSPARSE\n",
          "Generated by `scripts/adi_report.py` from `tridiagonal.json` (`bench_tridiagonal`); do not edit by hand.\n",
          "Same random diagonally dominant systems for every solver (a, c, d uniform in [-1, 1), "
          "b = |a| + |c| + 0.5 + u); each solution checked against a double-precision Thomas solve on the CPU "
          "before timing (tolerance 1e-12 relative in double, 1e-4 in single). Times: medians of CUDA-event "
          "timings of the solve alone, inputs restored before every solve. Effective bytes = 5 n batch "
          "sizeof(T) (a, b, c, d read once, x written once); systems/s = batch / time.\n",
          "## Provenance\n", provenance(ctx, prov_path)]

    csv_rows, summary, misses = [], [], []
    for (precision, n, batch), s in sorted(configs.items()):
        for name in solvers:
            b = s.get(name)
            if not b:
                continue
            t = b["median_s"]
            csv_rows.append([precision, n, batch, name, int(b.get("ours", 0)), t * 1e6, b["min_s"] * 1e6,
                             batch / t, b["effective_bytes"] / t / 1e9, b["max_relative_error"], int(b["check_passed"])])
        ours = [(s[k]["median_s"], k) for k in solvers[:3] if k in s]
        theirs = [(s[k]["median_s"], k) for k in solvers[3:] if k in s]
        if not ours or not theirs:
            continue
        (to, ko), (tt, kt) = min(ours), min(theirs)
        speedup = tt / to
        eb = s[ko]["effective_bytes"]
        summary.append([precision, n, batch, ko, fmt(batch / to / 1e6), fmt(eb / to / 1e9), kt, fmt(batch / tt / 1e6),
                        fmt(eb / tt / 1e9), fmt(speedup), "yes" if speedup >= 1 else "**no**"])
        if speedup < 1:
            misses.append(f"- {precision}, n = {n}, batch = {batch}: our best ({ko}) is {fmt(100 * (1 - speedup))} % slower "
                          f"than {kt} ({fmt(to * 1e6)} us against {fmt(tt * 1e6)} us)")

    md.append("## Target: for every size our best kernel at least as fast as cuSPARSE's best\n")
    md.append(table(["precision", "n", "batch", "our best", "M systems/s", "GB/s", "cuSPARSE best", "M systems/s",
                     "GB/s", "speed-up", "met"], summary))
    per_n = {}
    for row in summary:
        per_n.setdefault((row[0], row[1]), []).append(row[-1] == "yes")
    met_all = all(all(v) for v in per_n.values())
    md.append(("All sizes met.\n" if met_all else "Not met everywhere:\n\n" + "\n".join(misses) + "\n"))
    if errors:
        md.append("### Failed checks\n\n" + "\n".join(errors) + "\n")

    for precision in sorted({k[0] for k in configs}):
        md.append(f"## All solvers, {precision} precision (median us / M systems/s / GB/s)\n")
        rows = []
        for (p, n, batch), s in sorted(configs.items()):
            if p != precision:
                continue
            row = [n, batch]
            for name in solvers:
                b = s.get(name)
                row.append("-" if not b else f"{fmt(b['median_s'] * 1e6)} / {fmt(batch / b['median_s'] / 1e6)} / "
                           f"{fmt(b['effective_bytes'] / b['median_s'] / 1e9)}")
            rows.append(row)
        md.append(table(["n", "batch"] + solvers, rows))
    worst = max((b["max_relative_error"] for s in configs.values() for b in s.values()), default=None)
    md.append(f"Largest relative error against the CPU over all checked solutions: {fmt(worst)}.\n")

    header = ["precision", "n", "batch", "solver", "ours", "median_us", "min_us", "systems_per_s", "effective_gbs",
              "max_relative_error", "check_passed"]
    return "\n".join(md), csv_text(header, csv_rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--adi", action="append", default=[],
                    help="bench_adi JSON; repeated: the runs are merged, a later run's benchmark replacing an "
                         "earlier one of the same name (each run's provenance is listed)")
    ap.add_argument("--tridiagonal", help="bench_tridiagonal JSON")
    ap.add_argument("--run", help="`warpmodel run-adi -o` JSON (optional)")
    ap.add_argument("--provenance", help="text file with the device run's provenance (optional)")
    ap.add_argument("--dram", action="append", default=[],
                    help="`warpmodel profile --kernel adi` JSON with dram__bytes_read.sum, dram__bytes_write.sum (optional)")
    ap.add_argument("--out", required=True, help="output folder, e.g. results/h200")
    a = ap.parse_args()
    if not a.adi and not a.tridiagonal:
        fail("give --adi and/or --tridiagonal")
    outputs = []
    if a.adi:
        md, c = adi_report(merge_runs([load(f) for f in a.adi]), load(a.run) if a.run else None, a.provenance,
                           [load(d) for d in a.dram])
        outputs += [("adi.md", md), ("adi.csv", c)]
    if a.tridiagonal:
        md, c = tridiagonal_report(load(a.tridiagonal), a.provenance)
        outputs += [("tridiagonal.md", md), ("tridiagonal.csv", c)]
    for name, text in outputs:
        write_atomically(os.path.join(a.out, name), text)
        print(f"wrote {os.path.join(a.out, name)}")


if __name__ == "__main__":
    main()
