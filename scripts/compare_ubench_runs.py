#!/usr/bin/env python3
"""Repeatability of two `warpmodel characterize` runs (criterion: within 1 cycle below 100 cycles,
within 2% otherwise). Reads the measurements.latency tables of two device.json files and writes a
markdown table. Usage: scripts/compare_ubench_runs.py RUN1/device.json RUN2/device.json [-o OUT.md]"""
import json
import sys


def main():
    a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
    out = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "-o" else None
    la, lb = a["measurements"]["latency"], b["measurements"]["latency"]
    rows, bad = [], 0
    for name in sorted(set(la) & set(lb)):
        for k in ("warps_1", "warps_32"):
            if k not in la[name] or k not in lb[name]:
                continue
            x, y = la[name][k]["mean_cycles"], lb[name][k]["mean_cycles"]
            d = abs(x - y)
            ok = d <= 1 if max(x, y) < 100 else d <= 0.02 * max(x, y)
            bad += not ok
            rows.append(f"| {name} | {k.replace('_', ' ')} | {x:.2f} | {y:.2f} | {d:.2f} | {100 * d / max(abs(x), 1e-9):.2f}% | {'yes' if ok else 'NO'} |")
    text = (f"# Repeatability: two consecutive `warpmodel characterize` runs\n\n"
            f"Run 1: {a['provenance'].get('date')} ({sys.argv[1]}); run 2: {b['provenance'].get('date')} ({sys.argv[2]}).\n"
            f"Provenance (run 1): GPU {a['provenance'].get('gpu')}, driver {a['provenance'].get('driver')}, "
            f"CUDA runtime {a['provenance'].get('cuda_runtime')}, SM clock {a['provenance'].get('sm_clock_mhz_before', a['provenance'].get('sm_clock_mhz', '?'))} MHz, "
            f"commit {a['provenance'].get('commit')}, command `{a['provenance'].get('command')}` (full record in each device.json).\n"
            f"Repeatability criterion: |difference| <= 1 cycle below 100 cycles, <= 2% otherwise. "
            f"{len(rows) - bad} of {len(rows)} rows meet it.\n\n"
            "| benchmark | warps | run 1 [cycles] | run 2 [cycles] | abs diff | rel diff | within |\n|---|---|---|---|---|---|---|\n"
            + "\n".join(rows) + "\n")
    med = []
    for name in sorted(set(la) & set(lb)):
        for k in ("warps_1", "warps_32"):
            if k in la[name] and k in lb[name] and "median_cycles" in la[name][k] and "median_cycles" in lb[name][k]:
                x, y = la[name][k]["median_cycles"], lb[name][k]["median_cycles"]
                med.append(f"| {name} | {k.replace('_', ' ')} | {x:.2f} | {y:.2f} | {100 * abs(x - y) / max(abs(x), 1e-9):.2f}% |")
    if med:
        text += ("\nMedians beside the means (information only; the criterion above is applied to the means):\n\n"
                 "| benchmark | warps | run 1 median | run 2 median | rel diff |\n|---|---|---|---|---|\n" + "\n".join(med) + "\n")
    ra, rb = a["measurements"]["departure_delay"], b["measurements"]["departure_delay"]
    text += "\n| departure delay | run 1 | run 2 |\n|---|---|---|\n"
    for k in ("departure_coalesced", "departure_uncoalesced"):
        if k in ra and k in rb:
            text += f"| direct, {k.split('_')[1]} | {ra[k]['delta_cycles']:.3f} ± {ra[k]['u_cycles']:.3f} | {rb[k]['delta_cycles']:.3f} ± {rb[k]['u_cycles']:.3f} |\n"
    for k in ("thesis_eq_4_25_coalesced", "thesis_eq_4_25_uncoalesced"):
        text += f"| {k} | {ra[k]:.3f} | {rb[k]:.3f} |\n"
    text += "\n| bandwidth [GB/s] | run 1 | run 2 |\n|---|---|---|\n"
    for k in sorted(a["measurements"]["bandwidth"]):
        text += f"| {k} | {a['measurements']['bandwidth'][k]['gbs']:.1f} | {b['measurements']['bandwidth'][k]['gbs']:.1f} |\n"
    if out:
        open(out, "w").write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
