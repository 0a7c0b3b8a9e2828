#!/usr/bin/env python3
"""Tables from measured stencil data. Writers only: nothing here measures.

  stencil_report.py bench --json results/h200/stencils.json.xz --provenance results/h200/provenance.json \
      --md results/h200/stencils.md --csv results/h200/stencils.csv
      bench_stencils' Google Benchmark JSON (run with --benchmark_repetitions and aggregates) ->
      the orders x variants table (best block per cell, fraction of the measured copy bandwidth),
      the targets at the largest size, intz-reg's depth/loader comparison, and every median as CSV.

  stencil_report.py sanitizer --log memcheck=LOG --log racecheck=LOG --command "..." \
      --provenance P --md results/h200/stencils-sanitizer.md
      compute-sanitizer logs of the GPU test's sweep over every kernel -> pass/fail per run and per kernel.

Bad input (unreadable or malformed file, missing fields): one line on stderr, exit 2, nothing written.
"""
import argparse
import csv
import io
import json
import lzma
import os
import re
import sys
import tempfile

TARGETS = {2: 0.85, 4: 0.85, 8: 0.85, 16: 0.70}  # the stencil targets: best variant at the largest size, fraction of copy
VARIANTS = ["naive", "readonly", "shared", "intz", "intz-reg"]


class InputError(Exception):
    pass


def write_atomically(path, text):
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".")
    try:
        with os.fdopen(fd, "w", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def load_json(path, what):
    try:
        # results/ keeps the benchmark output xz-compressed (docs/results-layout.md)
        with (lzma.open(path, "rt", encoding="utf-8") if path.endswith(".xz") else open(path, encoding="utf-8")) as f:
            return json.load(f)
    except lzma.LZMAError as e:
        raise InputError(f"{path}: not a complete xz stream ({e})")
    except OSError as e:
        raise InputError(f"{path}: cannot read the {what}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: the {what} is not valid JSON: {e.msg} at line {e.lineno}")


def write_provenance(md, provenance):
    if not provenance:
        return
    md.write("## Provenance\n\n")
    for k, v in provenance.items():
        md.write(f"- {k}: `{json.dumps(v) if isinstance(v, (dict, list)) else v}`\n")
    md.write("\n")


def parse_name(run_name):
    """'stencil/n:512/order:8/variant:intz-reg/block:32x8x1/depth:2/loader:tma' -> dict."""
    parts = run_name.split("/")
    fields = {"kind": parts[0]}
    for p in parts[1:]:
        if ":" in p:
            k, v = p.split(":", 1)
            fields[k] = v
    return fields


def medians(doc, path):
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        raise InputError(f"{path}: not Google Benchmark JSON (no 'benchmarks' list)")
    rows = []
    for b in doc["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        if b.get("error_occurred"):
            continue
        name = b.get("run_name", b.get("name", ""))
        rows.append((name, b))
    # Prefer medians; a run without repetitions has only plain iterations.
    have_median = {n for n, b in rows if b.get("aggregate_name") == "median"}
    return [(n, b) for n, b in rows if b.get("aggregate_name") == "median" or n not in have_median]


def skipped(doc):
    out = []
    for b in doc.get("benchmarks", []):
        if b.get("error_occurred") and b.get("run_type") != "aggregate":
            out.append((b.get("run_name", b.get("name")), b.get("error_message", "")))
    seen, unique = set(), []
    for n, m in out:
        if n not in seen:
            seen.add(n)
            unique.append((n, m))
    return unique


def number(b, key, path, name):
    if key not in b or not isinstance(b[key], (int, float)):
        raise InputError(f"{path}: benchmark {name}: missing number '{key}'")
    return float(b[key])


def device_references(device, path):
    """Bandwidth references from a characterize profile (results/<gpu>/device.json): the runtime's
    theoretical peak and the ubench DRAM read/write/copy kernels, all measured or derived there."""
    if device is None:
        return None
    try:
        refs = {"theoretical peak (2 x memory clock x bus width)": float(device["hardware"]["mem_peak_bandwidth_gbs"]) * 1e9}
        for k in ("dram_read", "dram_write", "dram_copy"):
            b = device.get("measurements", {}).get("bandwidth", {}).get(k)
            if b:
                refs[f"ubench {k} kernel"] = float(b["gbs"]) * 1e9
    except (KeyError, TypeError, ValueError):
        raise InputError(f"{path}: not a warpmodel device profile (no hardware.mem_peak_bandwidth_gbs)")
    return refs


def bench_tables(doc, provenance, path, device_refs=None):
    rows = medians(doc, path)
    copies = {}
    stencils = []
    for name, b in rows:
        f = parse_name(name)
        if f["kind"] == "copy":
            copies[f.get("when", "?")] = number(b, "bytes_per_second", path, name)
        elif f["kind"] == "stencil":
            try:
                rec = {
                    "n": int(f["n"]), "order": int(f["order"]), "variant": f["variant"], "block": f["block"],
                    "depth": int(f["depth"]) if "depth" in f else None, "loader": f.get("loader"),
                }
            except (KeyError, ValueError):
                raise InputError(f"{path}: benchmark name '{name}' lacks n/order/variant/block")
            rec["points_per_second"] = number(b, "points_per_second", path, name)
            rec["effective_bytes_per_second"] = number(b, "effective_bytes_per_second", path, name)
            steps = b.get("steps_per_iteration", 1) or 1
            unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}.get(b.get("time_unit", "ns"), 1e-9)
            rec["ms_per_step"] = number(b, "real_time", path, name) * unit / steps * 1e3
            for k in ("blocks_per_sm", "warps_per_sm", "registers_per_thread", "spill_bytes", "shared_bytes_per_block",
                      "z_chunk", "grid_x", "grid_y", "grid_z"):
                rec[k] = b.get(k)
            rec["kernel"] = b.get("label", "")
            stencils.append(rec)
    if not copies:
        raise InputError(f"{path}: no device-to-device copy benchmark (copy/...) in the file")
    if not stencils:
        raise InputError(f"{path}: no stencil benchmark in the file")
    copy_bw = sum(copies.values()) / len(copies)
    for r in stencils:
        r["fraction_of_copy"] = r["effective_bytes_per_second"] / copy_bw

    def config(r):
        s = r["block"]
        if r["variant"] == "intz-reg":
            s += f" d{r['depth']} {r['loader']}"
        return s

    best = {}
    for r in stencils:
        key = (r["n"], r["order"], r["variant"])
        if key not in best or r["fraction_of_copy"] > best[key]["fraction_of_copy"]:
            best[key] = r
    sizes = sorted({r["n"] for r in stencils})
    orders = sorted({r["order"] for r in stencils})
    variants = [v for v in VARIANTS if any(r["variant"] == v for r in stencils)]

    md = io.StringIO()
    md.write("# Acoustic FDTD propagator on the GPU: the five memory variants\n\n")
    md.write("Generated by `scripts/stencil_report.py bench` from `stencils.json` (bench_stencils, Google Benchmark, "
             "median of the repetitions, CUDA-event timing). Do not edit by hand.\n\n")
    write_provenance(md, provenance)
    md.write("## Copy reference\n\n")
    md.write("Device-to-device `cudaMemcpyAsync` of 1 GiB, timed in the same run (first and last benchmark), "
             "counting bytes read + written:\n\n| when | GB/s |\n|---|---:|\n")
    for when, bw in sorted(copies.items()):
        md.write(f"| {when} | {bw / 1e9:.1f} |\n")
    md.write(f"| **reference (mean)** | **{copy_bw / 1e9:.1f}** |\n\n")
    md.write("Every kernel moves at least 16 B per point (p(n-1), p(n), vel2 read once, p(n+1) written once); "
             "*fraction of copy* = (16 B x points per second) / copy bandwidth.\n\n")
    md.write("A fraction above 1 is possible: a copy is half writes, the stencil's minimal traffic is three quarters "
             "reads, and HBM reads run faster than a read/write mix (the ubench read and write kernels below).\n\n")
    if device_refs:
        md.write("Other references (from the characterize profile `device.json` of this GPU):\n\n"
                 "| reference | GB/s | copy / reference |\n|---|---:|---:|\n")
        for name, bw in device_refs.items():
            md.write(f"| {name} | {bw / 1e9:.1f} | {copy_bw / bw:.3f} |\n")
        md.write("\n")

    for n in sorted(sizes, reverse=True):
        md.write(f"## {n}^3: fraction of copy bandwidth, best block per cell\n\n")
        md.write("Cell: fraction of copy (effective GB/s, ms per step) and the best launch "
                 "(threads per block; intz-reg: pipeline depth and loader).\n\n")
        md.write("| order | " + " | ".join(variants) + " | best |\n|---:|" + "---|" * (len(variants) + 1) + "\n")
        for o in orders:
            cells, top = [], None
            for v in variants:
                r = best.get((n, o, v))
                if not r:
                    cells.append("")
                    continue
                cells.append(f"{r['fraction_of_copy']:.3f} ({r['effective_bytes_per_second'] / 1e9:.0f} GB/s, "
                             f"{r['ms_per_step']:.4g} ms) {config(r)}")
                if top is None or r["fraction_of_copy"] > top["fraction_of_copy"]:
                    top = r
            md.write(f"| {o} | " + " | ".join(cells) + f" | {top['variant'] if top else ''} |\n")
        md.write("\n")

    largest = max(sizes)
    md.write(f"## Targets at {largest}^3\n\n")
    peak = (device_refs or {}).get("theoretical peak (2 x memory clock x bus width)")
    md.write("| order | target | best variant | launch | fraction of copy | effective GB/s |"
             + (" fraction of peak |" if peak else "") + " status |\n|---:|---:|---|---|---:|---:|"
             + ("---:|" if peak else "") + "---|\n")
    misses = []
    for o, target in sorted(TARGETS.items()):
        cands = [r for r in best.values() if r["n"] == largest and r["order"] == o]
        if not cands:
            md.write(f"| {o} | {target:.2f} | not measured | | | |" + (" |" if peak else "") + " not measured |\n")
            continue
        r = max(cands, key=lambda x: x["fraction_of_copy"])
        ok = r["fraction_of_copy"] >= target
        status = "met" if ok else f"missed by {target - r['fraction_of_copy']:.3f}"
        if not ok:
            misses.append(o)
        md.write(f"| {o} | {target:.2f} | {r['variant']} | {config(r)} | {r['fraction_of_copy']:.3f} | "
                 f"{r['effective_bytes_per_second'] / 1e9:.0f} |"
                 + (f" {r['effective_bytes_per_second'] / peak:.3f} |" if peak else "") + f" {status} |\n")
    md.write("\n")

    tuning = [r for r in stencils if r["variant"] == "intz-reg" and r["n"] == largest]
    if tuning:
        md.write(f"## intz-reg at {largest}^3: every launch measured\n\n")
        md.write("| order | block | depth | loader | fraction of copy | ms per step | blocks/SM | warps/SM | registers | spills (B) | shared (B) | z chunk |\n")
        md.write("|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for r in sorted(tuning, key=lambda x: (x["order"], -x["fraction_of_copy"])):
            md.write(f"| {r['order']} | {r['block']} | {r['depth']} | {r['loader']} | {r['fraction_of_copy']:.3f} | "
                     f"{r['ms_per_step']:.4f} | {fmt(r['blocks_per_sm'])} | {fmt(r['warps_per_sm'])} | "
                     f"{fmt(r['registers_per_thread'])} | {fmt(r['spill_bytes'])} | {fmt(r['shared_bytes_per_block'])} | "
                     f"{fmt(r['z_chunk'])} |\n")
        md.write("\n")
    skips = skipped(doc)
    if skips:
        md.write("## Launches refused\n\n")
        for n, m in skips:
            md.write(f"- `{n}`: {m}\n")
        md.write("\n")

    out = io.StringIO()
    cols = ["n", "order", "variant", "block", "depth", "loader", "ms_per_step", "points_per_second",
            "effective_bytes_per_second", "fraction_of_copy", "blocks_per_sm", "warps_per_sm", "registers_per_thread",
            "spill_bytes", "shared_bytes_per_block", "z_chunk", "grid_x", "grid_y", "grid_z", "kernel"]
    w = csv.DictWriter(out, fieldnames=cols, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in sorted(stencils, key=lambda x: (x["n"], x["order"], VARIANTS.index(x["variant"]) if x["variant"] in VARIANTS else 99, x["block"], x["depth"] or 0, x["loader"] or "")):
        w.writerow(r)
    return md.getvalue(), out.getvalue(), misses


def fmt(v):
    if v is None:
        return ""
    return str(int(v)) if float(v).is_integer() else f"{v:.3g}"


def sanitizer_tables(logs, command, provenance):
    md = io.StringIO()
    md.write("# compute-sanitizer on every stencil kernel (H200)\n\n")
    md.write("Generated by `scripts/stencil_report.py sanitizer` from the logs beside this file. Each tool ran once over "
             "the GPU test `GpuSanitizerSweep.EveryKernelFewSteps`: every instantiated kernel (5 variants x orders "
             "2..16; intz-reg at depths 1..3 with both loaders), 3 steps each on a 41x23x21 grid (odd sizes, "
             "blocks hang over every edge), output poisoned before each step and compared with the CPU reference.\n\n")
    write_provenance(md, provenance)
    md.write(f"Command (per tool):\n\n```sh\n{command}\n```\n\n")
    md.write("| tool | kernels launched | sanitizer summary | test result | status |\n|---|---:|---|---|---|\n")
    per_kernel = {}
    all_ok = True
    for tool, path in logs:
        try:
            with open(path, errors="replace") as f:
                text = f.read()
        except OSError as e:
            raise InputError(f"{path}: cannot read the {tool} log: {e.strerror}")
        kernels = re.findall(r"sanitizer sweep: (\S+(?:, \d+)?>) \((\S+)\) relative L2 (\S+)", text)
        summary = re.findall(r"(ERROR SUMMARY: \d+ errors?|RACECHECK SUMMARY: [^\n]*)", text)
        errors = sum(int(x) for x in re.findall(r"ERROR SUMMARY: (\d+) error", text))
        hazards = re.findall(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)", text)
        errors += sum(int(e) for _, e, _ in hazards)
        warnings = sum(int(w) for _, _, w in hazards)
        passed = re.search(r"\[  PASSED  \] 1 test", text) is not None and "FAILED" not in text
        if not summary:
            raise InputError(f"{path}: no sanitizer summary in the {tool} log (did compute-sanitizer run?)")
        ok = errors == 0 and warnings == 0 and passed and len(kernels) > 0
        all_ok &= ok
        md.write(f"| {tool} | {len(kernels)} | {'; '.join(sorted(set(summary)))} | {'passed' if passed else 'FAILED'} | "
                 f"{'pass' if ok else 'FAIL'} |\n")
        for name, mangled, err in kernels:
            # A report names the kernel it found the problem in; count the lines that name this one.
            hits = len(re.findall(re.escape(mangled), text)) - 1 if mangled else 0
            per_kernel.setdefault(name, {})[tool] = (hits, err)
    md.write("\n## Per kernel\n\nReports naming the kernel (0 = clean) and the relative L2 error after 3 steps.\n\n")
    tools = [t for t, _ in logs]
    md.write("| kernel | " + " | ".join(tools) + " |\n|---|" + "---|" * len(tools) + "\n")
    for name in per_kernel:
        cells = []
        for t in tools:
            if t in per_kernel[name]:
                hits, err = per_kernel[name][t]
                cells.append(f"{hits} ({err})")
            else:
                cells.append("not run")
        md.write(f"| `{name}` | " + " | ".join(cells) + " |\n")
    return md.getvalue(), all_ok


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    b = sub.add_parser("bench")
    b.add_argument("--json", required=True)
    b.add_argument("--provenance")
    b.add_argument("--device", help="results/<gpu>/device.json: extra bandwidth references")
    b.add_argument("--md", required=True)
    b.add_argument("--csv", required=True)
    s = sub.add_parser("sanitizer")
    s.add_argument("--log", action="append", required=True, help="TOOL=PATH")
    s.add_argument("--command", required=True)
    s.add_argument("--provenance")
    s.add_argument("--md", required=True)
    a = ap.parse_args(argv)
    try:
        prov = load_json(a.provenance, "provenance") if a.provenance else None
        if prov and prov.get("schema") == "warpmodel.provenance/1":  # a folder's index: the benchmark's record
            prov = prov.get("outputs", {}).get(os.path.basename(a.json))
        if a.what == "bench":
            doc = load_json(a.json, "benchmark output")
            refs = device_references(load_json(a.device, "device profile"), a.device) if a.device else None
            md, table, misses = bench_tables(doc, prov, a.json, refs)
            write_atomically(a.csv, table)
            write_atomically(a.md, md)
            print(f"stencil_report: wrote {a.md} and {a.csv}" + (f"; targets missed at orders {misses}" if misses else ""))
        else:
            logs = []
            for item in a.log:
                if "=" not in item:
                    raise InputError(f"--log '{item}': expected TOOL=PATH")
                logs.append(tuple(item.split("=", 1)))
            md, ok = sanitizer_tables(logs, a.command, prov)
            write_atomically(a.md, md)
            print(f"stencil_report: wrote {a.md}: {'all clean' if ok else 'FAILURES'}")
    except InputError as e:
        print(f"stencil_report: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
