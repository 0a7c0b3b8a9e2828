#!/usr/bin/env python3
"""A/B table of Google Benchmark runs of several binaries on one card (the ADI probes and A/B runs in
results/<gpu>/logs/adi-*/). Reads DIR/bench-<variant>-<run>.json for each variant, takes each benchmark's
median real_time over the runs (the runs alternate the binaries, so a drift of the card shows as a spread
between runs, not as a difference between variants), and writes one row per benchmark: the medians and
each variant's ratio to the first. The table starts with where the runs came from: each variant's
benchmark context (GPU, CUDA versions, SM clock, date, command) and, where DIR holds a provenance.json,
the run's card, driver, commit and command.

usage: compare_bench_runs.py DIR VARIANT,VARIANT[,...] [-o OUT.md|OUT.csv]
Bad input (no file of a variant, a file that is not benchmark JSON, an unknown option) gets one line on
stderr and exit 2, and no output file."""
import csv
import glob
import io
import json
import os
import re
import statistics
import sys


class InputError(Exception):
    pass


def benchmark_name(name):
    # "adi/fused/double/2048/step/iterations:30/manual_time" -> "adi/fused/double/2048/step"
    return re.sub(r"/(iterations|repeats|min_time|manual_time|real_time)(:[^/]*)?", "", name)


def read_runs(directory, variant):
    # The runs, not their provenance sidecars (bench-V-N.provenance.json beside each).
    files = sorted(f for f in glob.glob(os.path.join(directory, f"bench-{variant}-*.json"))
                   if not f.endswith(".provenance.json"))
    if not files:
        raise InputError(f"no bench-{variant}-*.json in {directory}: name the variants by their files")
    times, context = {}, None
    for path in files:
        try:
            with open(path) as f:
                doc = json.load(f)
            if context is None:
                context = doc.get("context", {})  # the first run's: binary, card, CUDA, date, command
            for b in doc["benchmarks"]:
                if b.get("run_type") == "aggregate" or "real_time" not in b:
                    continue
                times.setdefault(benchmark_name(b["name"]), []).append(float(b["real_time"]))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise InputError(f"{path} is not Google Benchmark JSON ({e.__class__.__name__}: {e})") from None
    return {k: statistics.median(v) for k, v in times.items()}, context, files


def run_record(directory):
    """The run's provenance.json beside the runs (card UUID, driver, commit, the command), where there is one."""
    path = os.path.join(directory, "provenance.json")
    if not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise InputError(f"{path} is not JSON ({e.__class__.__name__}: {e})") from None


def table(directory, variants):
    medians, sources = {}, []
    for v in variants:
        medians[v], c, files = read_runs(directory, v)
        sources.append(f"- `{v}`: {len(files)} run(s) of `{c.get('executable', '?')}` on {c.get('gpu_name', '?')} "
                       f"(CUDA driver {c.get('cuda_driver_version', '?')}, runtime {c.get('cuda_runtime_version', '?')}, "
                       f"max SM clock {c.get('gpu_max_sm_clock_mhz', '?')} MHz), first run {c.get('date', '?')}, "
                       f"command `{c.get('command', '?')}`")
    record = run_record(directory)
    if record:
        sources.append(f"- the run (`provenance.json` beside these files): {record.get('gpu', '?')} "
                       f"{record.get('gpu_uuid', '?')}, driver {record.get('driver', '?')}, date {record.get('date', '?')}, "
                       f"commit {record.get('git_commit', record.get('commit', '?'))}, command `{record.get('command', '?')}`")
        binaries = record.get("variants", {})
        for v in variants:
            binary = v if v in binaries else v.split("_")[0]  # probe.sh: variant_C is binary `variant` run another way
            if binary in binaries:
                sources.append(f"  - `{v}`: {binaries[binary]}")
    names = sorted(set().union(*(m.keys() for m in medians.values())))
    rows = []
    for n in names:
        base = medians[variants[0]].get(n)
        row = [n]
        for v in variants:
            t = medians[v].get(n)
            row.append(t)
            if v != variants[0]:
                row.append(t / base if t is not None and base else None)
        rows.append(row)
    return sources, rows


def header(variants):
    h = ["benchmark"]
    for v in variants:
        h.append(f"{v} (us)")
        if v != variants[0]:
            h.append(f"{v}/{variants[0]}")
    return h


def as_markdown(directory, variants, sources, rows):
    fmt = lambda x: "-" if x is None else (f"{x:.3f}" if x < 10 else f"{x:.2f}")
    lines = [f"Medians of real_time over the runs in `{directory}` (scripts/compare_bench_runs.py); ratios to "
             f"`{variants[0]}`.", ""] + sources + ["", "| " + " | ".join(header(variants)) + " |",
                                                   "|" + "---|" * len(header(variants))]
    lines += ["| " + " | ".join([r[0]] + [fmt(x) for x in r[1:]]) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def as_csv(variants, rows):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header(variants))
    w.writerows([[("" if x is None else x) for x in r] for r in rows])
    return out.getvalue()


def main(argv):
    args, output = list(argv), None
    if "-o" in args:
        i = args.index("-o")
        if i + 1 >= len(args):
            raise InputError("-o needs a file name (OUT.md or OUT.csv)")
        output = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2 or any(a.startswith("-") for a in args):
        raise InputError("usage: compare_bench_runs.py DIR VARIANT,VARIANT[,...] [-o OUT.md|OUT.csv]")
    directory, variants = args[0], [v for v in args[1].split(",") if v]
    if len(variants) < 2:
        raise InputError("name at least two variants, the first the baseline (e.g. base,new)")
    sources, rows = table(directory, variants)
    text = as_csv(variants, rows) if output and output.endswith(".csv") else as_markdown(directory, variants, sources, rows)
    if output:
        tmp = output + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, output)  # nothing half-written
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except InputError as e:
        print(f"compare_bench_runs: {e}", file=sys.stderr)
        sys.exit(2)
