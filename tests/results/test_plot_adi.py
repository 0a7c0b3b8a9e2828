#!/usr/bin/env python3
"""results.plot_adi: scripts/plot_adi.py on a small hand-written adi.csv.

The state-only fraction of copy it plots (8 arrays of the grid over the step, over the copy bandwidth
the rows were divided by), the figure written beside the CSV at its size, the same bytes from two
runs, and bad input (exit 2, one line, no figure).
usage: test_plot_adi.py REPO
"""
import csv
import importlib.util
import os
import subprocess
import sys
import tempfile

HEADER = ["variant", "precision", "nx", "ny", "kernel", "median_us", "mean_us", "min_us", "effective_bytes",
          "effective_gbs", "fraction_of_copy"]
COPY_GBS = 4000.0


def row(variant, precision, nx, ny, kernel, median_us, effective_bytes):
    gbs = effective_bytes / (median_us * 1e-6) / 1e9
    return [variant, precision, nx, ny, kernel, median_us, median_us, median_us, effective_bytes, gbs, gbs / COPY_GBS]


def main():
    repo = os.path.abspath(sys.argv[1])
    script = os.path.join(repo, "scripts", "plot_adi.py")
    spec = importlib.util.spec_from_file_location("plot_adi", script)
    plot_adi = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot_adi)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "adi.csv")
        rows = []
        for n, t in ((1024, 100.0), (2048, 268.435456)):
            for precision, scale in (("double", 1.0), ("single", 0.5)):
                rows.append(row("fused", precision, n, n, "step", t * scale, 3e8))
                rows.append(row("partitioned", precision, n, n, "step", 2 * t * scale, 6e8))
                rows.append(row("fused", precision, n, n, "sweep-x", t * scale / 3, 1e8))
        rows.append(row("fused", "double", 1536, 2400, "step", 300.0, 3e8))
        with open(path, "w", newline="") as f:
            csv.writer(f).writerows([HEADER] + rows)

        steps = plot_adi.steps(path)
        if set(steps["kernel"]) != {"step"} or len(steps) != 9:
            failures.append(f"steps(): {len(steps)} rows of kernels {sorted(set(steps['kernel']))}, want the 9 steps")
        # 2048^2 double fused: 8 arrays x 2048^2 x 8 bytes = 268.435456 MB in 268.435456 us = 1000 GB/s.
        key = steps[(steps["variant"] == "fused") & (steps["precision"] == "double") & (steps["nx"] == 2048)]
        frac = float(key["state_fraction"].iloc[0])
        if abs(frac - 1000.0 / COPY_GBS) > 1e-9:
            failures.append(f"state-only fraction of copy {frac}, want {1000.0 / COPY_GBS}")
        # Single: half the bytes in half the time, the same fraction.
        key = steps[(steps["variant"] == "fused") & (steps["precision"] == "single") & (steps["nx"] == 2048)]
        if abs(float(key["state_fraction"].iloc[0]) - 0.25) > 1e-9:
            failures.append(f"single precision state-only fraction {float(key['state_fraction'].iloc[0])}, want 0.25")

        png = os.path.join(tmp, "adi_steps.png")
        images = []
        for _ in range(2):
            run = subprocess.run([sys.executable, script, path], capture_output=True, text=True,
                                 env=dict(os.environ, MPLBACKEND="Agg"))
            if run.returncode != 0 or not os.path.exists(png):
                failures.append(f"plot_adi.py exited {run.returncode}: {run.stderr.strip()}")
                break
            images.append(open(png, "rb").read())
        if len(images) == 2:
            if images[0][:8] != b"\x89PNG\r\n\x1a\n" or int.from_bytes(images[0][16:20], "big") != 1760:
                failures.append("adi_steps.png: not a 1760-pixel-wide PNG")
            if images[0] != images[1]:
                failures.append("adi_steps.png: two runs drew different bytes")

        for name, text in (("validation.csv", "model,measured_cycles\nhopper,1\n"), ("empty.csv", ""),
                           ("no-steps.csv", ",".join(HEADER) + "\n"),
                           ("text-time.csv", ",".join(HEADER) + "\nfused,double,64,64,step,fast,1,1,1,1,1\n")):
            bad_dir = os.path.join(tmp, name + ".d")
            os.makedirs(bad_dir)
            bad = os.path.join(bad_dir, "adi.csv")
            with open(bad, "w") as f:
                f.write(text)
            run = subprocess.run([sys.executable, script, bad], capture_output=True, text=True)
            lines = run.stderr.strip().splitlines()
            if run.returncode != 2 or len(lines) != 1 or not lines[0].startswith("plot_adi.py: "):
                failures.append(f"{name}: exit {run.returncode}, stderr {run.stderr!r}; want 2 and one line")
            if os.path.exists(os.path.join(bad_dir, "adi_steps.png")):
                failures.append(f"{name}: a figure was written")
    for f in failures:
        print("FAIL:", f)
    print(f"plot_adi: {'FAILED' if failures else 'passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
