#!/usr/bin/env python3
"""Stall samples and executed instructions of an ncu source page (--page source --csv --print-source sass)
of one fused_sweep_kernel launch, summed over the sweep's three phases (fused.hpp): build = up to the
first BAR.SYNC, store = after the last BAR.SYNC (subroutines placed after the kernel's exits, such as
CUDA's sqrt slow path, count here), solve = between (the PCR levels' barriers are inside it).
Per phase: its share of the stall samples and of the instructions, the largest stall reasons, and the
instructions per cell by opcode (warp-level executed instructions x 32 / cells).
usage: stall_regions.py FILE.csv[.gz] CELLS"""
import collections
import csv
import gzip
import io
import sys

if len(sys.argv) != 3:
    sys.exit(__doc__.strip().splitlines()[-1])
path, cells = sys.argv[1], int(sys.argv[2])
text = (gzip.open if path.endswith(".gz") else open)(path, "rt").read()
lines = text.splitlines()
start = next(i for i, line in enumerate(lines) if line.startswith('"Address"'))
rows = list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))


def number(value):
    return float(value.replace(",", "")) if value else 0.0


def opcode(source):
    tokens = source.split()
    op = tokens[1] if tokens[0].startswith("@") else tokens[0]  # skip a predicate
    return op if op.startswith("IMAD.MOV") else op.split(".")[0]


barriers = [i for i, r in enumerate(rows) if "BAR.SYNC" in r["Source"]]
phases = {"build": range(0, barriers[0] + 1), "solve": range(barriers[0] + 1, barriers[-1] + 1),
          "store": range(barriers[-1] + 1, len(rows))}
stalls = [k for k in rows[0] if k.startswith("stall_") and "Not Issued" not in k]
all_samples = sum(number(r["Warp Stall Sampling (All Samples)"]) for r in rows)
all_instructions = sum(number(r["Instructions Executed"]) for r in rows)
print(f"# {path}, {cells} cells: {len(rows)} SASS instructions, {all_instructions * 32 / cells:.0f} executed a cell; "
      "phase shares of all stall samples and instructions")
for name, span in phases.items():
    sel = [rows[i] for i in span]
    samples = sum(number(r["Warp Stall Sampling (All Samples)"]) for r in sel)
    mix = collections.Counter()
    for r in sel:
        mix[opcode(r["Source"])] += number(r["Instructions Executed"])
    inst = sum(mix.values())
    reasons = sorted(((sum(number(r[k]) for r in sel), k[len("stall_"):]) for k in stalls), reverse=True)[:7]
    print(f"{name}: samples {100 * samples / all_samples:.1f} %, instructions {100 * inst / all_instructions:.1f} % "
          f"({inst * 32 / cells:.0f} a cell); stalls " + ", ".join(f"{k} {100 * v / all_samples:.1f} %" for v, k in reasons))
    print("  a cell: " + ", ".join(f"{k} {v * 32 / cells:.1f}" for k, v in mix.most_common(16)))
