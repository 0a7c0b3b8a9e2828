#!/usr/bin/env python3
"""results.plot_roofline: scripts/plot_roofline.py on a small hand-written device.json.

The ceilings it draws (FP32/FP64 FLOP/s = FMA ops/clk/SM x SMs x SM clock x 2, measured and spec; the
DRAM, L2 and shared bandwidths, dram_copy where there is no dram_read), roofline.png written beside
the profile by default and under 150 KB, the same bytes from two runs, --points and -o, and bad input
(exit 2, one line on stderr, no figure).
usage: test_plot_roofline.py REPO
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

DEVICE = {
    "schema": "warpmodel.device/1",
    "name": "Test GPU (warpmodel characterize)",
    "hardware": {"compute_capability": "9.0", "sm_count": 10, "sm_clock_mhz": 1000},
    "provenance": {"gpu": "Test GPU"},
    "measurements": {
        "throughput": {"fp32_fma": {"ops_per_clk_per_sm": 125, "spec_ops_per_clk_per_sm": 128},
                       "fp64_fma": {"ops_per_clk_per_sm": 50, "spec_ops_per_clk_per_sm": 64}},
        "bandwidth": {"dram_read": {"gbs": 900, "spec_gbs": 1000}, "dram_copy": {"gbs": 800},
                      "l2_read": {"gbs": 2500}, "shared_read": {"gbs": 10000}},
    },
}
MAX_BYTES = 150 * 1024


def main():
    repo = os.path.abspath(sys.argv[1])
    script = os.path.join(repo, "scripts", "plot_roofline.py")
    spec = importlib.util.spec_from_file_location("plot_roofline", script)
    plot_roofline = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot_roofline)
    failures = []
    env = dict(os.environ, MPLBACKEND="Agg")

    def run(*args):
        return subprocess.run([sys.executable, script, *args], capture_output=True, text=True, env=env)

    # The ceilings: 10 SMs x 1 GHz x 2 FLOP per FMA = 2e10 FLOP/s per FMA/clk/SM.
    compute, memory = plot_roofline.ceilings(DEVICE)
    want = [("FP32", 125 * 2e10, 128 * 2e10), ("FP64", 50 * 2e10, 64 * 2e10)]
    got = [(c[0], c[1], c[2]) for c in compute]
    if len(got) != 2 or any(g[0] != w[0] or abs(g[1] - w[1]) > 1 or abs(g[2] - w[2]) > 1 for g, w in zip(got, want)):
        failures.append(f"compute roofs {got}, want {want}")
    got = [(m[0], m[1], m[2]) for m in memory]
    want = [("DRAM", "dram_read", 900e9), ("L2", "l2_read", 2500e9), ("shared", "shared_read", 10000e9)]
    if got != want:
        failures.append(f"memory roofs {got}, want {want}")
    copy_only = json.loads(json.dumps(DEVICE))
    del copy_only["measurements"]["bandwidth"]["dram_read"]
    if plot_roofline.ceilings(copy_only)[1][0][1] != "dram_copy":
        failures.append("a profile without dram_read: the DRAM roof is not dram_copy")

    with tempfile.TemporaryDirectory() as tmp:
        device = os.path.join(tmp, "device.json")
        with open(device, "w", encoding="utf-8") as f:
            json.dump(DEVICE, f)
        png = os.path.join(tmp, "roofline.png")
        images = []
        for _ in range(2):
            r = run(device)
            if r.returncode != 0 or not os.path.exists(png):
                failures.append(f"plot_roofline.py exited {r.returncode}: {r.stderr.strip()}")
                break
            images.append(open(png, "rb").read())
        if len(images) == 2:
            if images[0][:8] != b"\x89PNG\r\n\x1a\n":
                failures.append("roofline.png is not a PNG")
            if len(images[0]) >= MAX_BYTES:
                failures.append(f"roofline.png: {len(images[0])} bytes, want under {MAX_BYTES}")
            if images[0] != images[1]:
                failures.append("roofline.png: two runs drew different bytes")

        points = os.path.join(tmp, "points.csv")
        with open(points, "w", encoding="utf-8") as f:
            f.write("label,intensity_flop_per_byte,flops_per_second,bound\n"
                    "stencil,0.5,4e11,dram\ngemm,40,2e12,compute\nscan,1,9e11,\ncopy,,,dram\n")
        out = os.path.join(tmp, "app", "roofline-app.png")
        os.makedirs(os.path.dirname(out))
        r = run(device, "--points", points, "-o", out)
        if r.returncode != 0 or not os.path.exists(out) or os.path.getsize(out) >= MAX_BYTES:
            failures.append(f"--points -o: exit {r.returncode}, {r.stderr.strip()!r}")
        elif images and open(out, "rb").read() == images[0]:
            failures.append("--points drew the same image as without points")

        bad_cases = [
            ("malformed.json", '{"hardware": {"sm_count": 10,', None),
            ("not-an-object.json", "[1, 2]", None),
            ("no-clock.json", json.dumps({**DEVICE, "hardware": {"sm_count": 10}}), None),
            ("no-throughput.json", json.dumps({**DEVICE, "measurements": {"bandwidth": {"dram_read": {"gbs": 9}}}}), None),
            ("no-bandwidth.json", json.dumps({**DEVICE, "measurements": {
                "throughput": DEVICE["measurements"]["throughput"]}}), None),
            ("bad-points.json", json.dumps(DEVICE), "label,intensity_flop_per_byte,flops_per_second\nx,fast,1e9\n"),
            ("points-columns.json", json.dumps(DEVICE), "label,flops\nx,1e9\n"),
        ]
        for name, text, points_text in bad_cases:
            folder = os.path.join(tmp, name + ".d")
            os.makedirs(folder)
            path = os.path.join(folder, "device.json")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            args = [path]
            if points_text is not None:
                with open(os.path.join(folder, "points.csv"), "w", encoding="utf-8") as f:
                    f.write(points_text)
                args += ["--points", os.path.join(folder, "points.csv")]
            r = run(*args)
            lines = r.stderr.strip().splitlines()
            if r.returncode != 2 or len(lines) != 1 or not lines[0].startswith("plot_roofline.py: "):
                failures.append(f"{name}: exit {r.returncode}, stderr {r.stderr!r}; want 2 and one line")
            if os.path.exists(os.path.join(folder, "roofline.png")):
                failures.append(f"{name}: a figure was written")
    for f in failures:
        print("FAIL:", f)
    print(f"plot_roofline: {'FAILED' if failures else 'passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
