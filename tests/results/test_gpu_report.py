#!/usr/bin/env python3
"""results.gpu_report: scripts/gpu_report.py on small hand-written folders.

A folder as scripts/characterize_gpu.sh leaves it (device.json, validation.json, provenance.json with
the device profile's record and a history of runs, stencils.csv, adi.csv, figures, one of them in a
subfolder): the sections in their order, the numbers at a glance (FLOP/s from FMA ops/clk/SM x SMs x
clock x 2, bandwidths against spec, cache sizes, latencies in cycles and ns), every figure embedded, the
last 5 runs only, the same bytes from two runs and no path of the machine. Then a bare folder (a
device.json whose cache sizes come from its footprint curve, nothing else): one short line per missing
file. Then bad input (exit 2, one line on stderr, the README left as it was).
usage: test_gpu_report.py REPO
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

DEVICE = {
    "schema": "warpmodel.device/1",
    "name": "Test GPU (warpmodel characterize)",
    "hardware": {"compute_capability": "9.0", "sm_count": 10, "sm_clock_mhz": 1000, "simd_width": 128,
                 "mem_peak_bandwidth_gbs": 1000},
    "latency_cycles": {"fp": 40, "l1_hit": 30, "l2_hit": 300, "dram": 700, "shared_load": 20,
                       "departure_delay_coalesced": 18.5, "departure_delay_uncoalesced": 70},
    "provenance": {"gpu": "Test GPU (embedded)", "driver": "580.1", "cuda_runtime": "13000",
                   "date": "2026-01-02T03:04:05Z", "commit": "abc1234", "command": "warpmodel characterize"},
    "measurements": {
        "bandwidth": {"dram_read": {"gbs": 900, "u_gbs": 1.5, "spec_gbs": 1000, "fraction_of_spec": 0.9},
                      "l2_read": {"gbs": 2500, "spec_gbs": None, "fraction_of_spec": None},
                      "shared_read": {"gbs": 1200, "spec_gbs": 1280, "fraction_of_spec": 0.9375},
                      "dram_read_rows_128b": {"gbs": 500}, "dram_read_rows_32b": {"gbs": 300}},
        "throughput": {"fp32_fma": {"ops_per_clk_per_sm": 125, "spec_ops_per_clk_per_sm": 128,
                                    "fraction_of_spec": 0.9765625, "u": 0.1},
                       "fp64_fma": {"ops_per_clk_per_sm": 48, "spec_ops_per_clk_per_sm": 64, "fraction_of_spec": 0.75},
                       "sfu_rcp": {"ops_per_clk_per_sm": 15, "spec_ops_per_clk_per_sm": 16},
                       "global_load_coalesced": {"requests_per_clk_per_sm": 2.5, "sectors_per_clk_per_sm": 10}},
        "capacity": {"l1_bytes_detected": 245760, "l2_bytes_detected": 67108864, "l2_bytes_runtime": 62914560,
                     "l1_carveout": "carveout = 0 % on both chase kernels"},
        "launch": {"one_block_per_sm_shared_bytes": 232448, "empty_kernel_us": 6.5},
        "departure_delay": {"thesis_eq_4_25_coalesced": 0.3, "departure_coalesced": {"u_cycles": 1.25}},
        "barrier": {"cycles_32_warps": 75},
        # The tensor stage, partly: a full wgmma row, a latency-only mma row, one cluster barrier.
        "tensor_cores": {"wgmma": {"f16": {"latency_cycles": 128, "ops_per_clk_per_sm": 3900,
                                           "spec_ops_per_clk_per_sm": 4096, "tera_ops_per_s": 39,
                                           "spec_tera_ops_per_s": 41, "fraction_of_spec": 0.95, "sass": "valid"}},
                         "mma_sync": {"f16": {"latency_cycles": 33, "sass": "valid"}}},
        "library_gemm": {"cublaslt_f16": {"tera_ops_per_s": 37, "fraction_of_spec": 0.9, "best_size": 8192,
                                          "wgmma_f16_ratio": 1.054}},
        "cluster": {"barrier": {"cluster_2": {"latency_cycles": 190}}},
    },
}


def score(cls, mape, signed):
    return {"class": cls, "cases": 10, "mape": mape, "median_abs_error": mape / 2, "mean_signed_error": signed,
            "within_10_percent": 0.5, "within_25_percent": 0.75}


VALIDATION = {
    "summaries": [
        {"model": "thesis-2016", "held_out_cases": 20, "mape": 0.6, "median_abs_error": 0.4, "max_abs_error": 2,
         "spearman": 0.8, "top1_hit_rate": 0.4},
        {"model": "hopper", "held_out_cases": 20, "mape": 0.2, "median_abs_error": 0.1, "max_abs_error": 1,
         "spearman": 0.95, "top1_hit_rate": 0.5},
    ],
    "leave_one_class_out": {"pooled": score("pooled", 0.235, -0.12),
                            "classes": [score("stencil", 0.1, 0.05), score("histogram", 0.84, -0.84),
                                        score("gather", 0.33, -0.31)]},
    "cross_gpu": [{"evaluation": "cross-gpu other -> test", "pooled": score("pooled", 0.26, -0.23)}],
}


def run_record(day, commit, uuid, stages):
    return {"date": f"2026-01-{day:02d}T10:00:00Z", "commit": commit, "command": "scripts/characterize_gpu.sh x",
            "gpu": "Test GPU", "gpu_uuid": uuid, "driver": "580.2", "cuda": "13.0",
            "stages": {name: {"status": status, "seconds": seconds} for name, status, seconds in stages}}


DEVICE_RECORD = {"kind": "measured", "gpu": "Test GPU", "gpu_uuid": "GPU-dev-uuid", "driver": "580.1", "cuda": "13.0",
                 "sm_clock_mhz": 1000.0, "sm_clock_source": "NVML, mean of the readings before and after the run",
                 "date": "2026-01-02T03:04:05Z", "commit": "abc1234", "command": "warpmodel characterize --output x"}
RUNS = [run_record(day, f"{day:x}" * 40, f"GPU-run-{day}", [("build", 0, 100), ("adi", 0, 300)])
        for day in (3, 4, 5, 6, 7)]
RUNS[-1]["stages"]["app"] = {"status": 1, "seconds": 5}
# Out of date order, and the last one recorded twice: shown once, in date order.
PROVENANCE = {"schema": "warpmodel.provenance/1", "folder": "test-gpu", "note": "hand-written",
              "outputs": {"device.json": DEVICE_RECORD,
                          "validation.json": dict(DEVICE_RECORD, kind="derived", **{"from": ["device.json"]})},
              "runs": [run_record(1, "1" * 40, "GPU-old-1", [("build", 0, 1)])] + RUNS[2:] + RUNS[:2]
              + [run_record(2, "2" * 40, "GPU-old-2", [("build", 0, 1)]), RUNS[-1]]}
ORDER = ["# Test GPU\n", "## At a glance", "![roofline](roofline.png)", "## Latency by level", "## Bandwidth",
         "## Issue rates and LSU throughput", "## Departure delays, barrier, launch", "## Tensor cores, TMA and clusters",
         "## Energy per operation", "## Model accuracy",
         "## Best stencil and ADI variants", "## Figures", "## Provenance and run history"]


def run(repo, folder):
    return subprocess.run([sys.executable, os.path.join(repo, "scripts/gpu_report.py"), folder],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def write(folder, name, value):
    path = os.path.join(folder, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(value if isinstance(value, str) else json.dumps(value))


def main():
    repo = os.path.abspath(sys.argv[1])
    failures = []

    def check(condition, what):
        if not condition:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "test-gpu")
        os.makedirs(folder)
        write(folder, "device.json", DEVICE)
        write(folder, "validation.json", VALIDATION)
        write(folder, "provenance.json", PROVENANCE)
        write(folder, "stencils.csv",
              "n,order,variant,block,depth,loader,ms_per_step,effective_bytes_per_second,fraction_of_copy\n"
              "64,2,naive,32x8x1,,,0.5,2e12,0.8\n64,2,intz-reg,32x16x1,2,tma,0.4,2.5e12,1.0\n"
              "32,2,shared,32x8x1,,,0.01,1e12,0.4\n")
        write(folder, "adi.csv", "variant,precision,n,kernel,median_us,effective_gbs,fraction_of_copy\n"
                                 "thread-per-line,double,256,step,100,500,0.2\npartitioned,double,256,step,50,1000,0.4\n"
                                 "partitioned,double,256,solve-x,5,900,0.3\n")
        for name in ("roofline.png", "validation_scatter.png", "extra.png", "app-example/launches.png"):
            write(folder, name, "")

        r = run(repo, folder)
        check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
        readme = open(os.path.join(folder, "README.md"), encoding="utf-8").read()
        positions = [readme.find(text) for text in ORDER]
        for text, pos in zip(ORDER, positions):
            check(pos >= 0, f"README lacks {text!r}")
        check(all(a < b for a, b in zip(positions, positions[1:])), f"sections out of order: {positions}")
        check("has no energy stage" in readme, "a device.json without measurements.energy: the energy section says so")
        check(readme.startswith("# Test GPU\n\n")
              and readme.count("\n## ") == sum(text.startswith("## ") for text in ORDER),
              "the page is not the title and its sections")
        check(readme.split("\n\n")[1].count(".") >= 1 and "do not edit" in readme.split("\n\n")[1],
              "the sentence under the title does not say the page is generated")
        expected = [
            # At a glance: the chip, the levels (sizes, latency in cycles and in ns at 1000 MHz).
            "| SMs | 10 |", "| SM clock | 1000 MHz", "| compute capability | 9.0 |",
            "| shared memory | 227 KiB per block at most (opt-in) | 20 | 20 |",
            "| L1 | 240 KiB per SM, footprint plateau (L1 carveout 0 %) | 30 | 30 |",
            "| L2 | 64 MiB by the footprint plateau; 60 MiB per the runtime | 300 | 300 |",
            "| DRAM | peak 1000 GB/s", "| 700 | 700 |",
            # 125 FFMA/clk/SM x 10 SMs x 1 GHz x 2 = 2.5 TFLOP/s; 48 DFMA: 0.96; SFU 15 x 10 x 1 GHz.
            "| FP32 (FFMA) | 2.50 TFLOP/s | 2.56 TFLOP/s | 97.7 % |",
            "| FP64 (DFMA) | 960 GFLOP/s | 1.28 TFLOP/s | 75 % |",
            "| SFU (MUFU.RCP) | 150 Gops/s | 160 Gops/s | 93.8 % |",
            "| DRAM read | 900 GB/s | 1000 GB/s | 90 % |", "| L2 read | 2500 GB/s | none published | - |",
            "| shared memory read | 1200 GB/s | 1280 GB/s | 93.8 % |",
            # The detailed sections as before.
            "| L1 hit | 30 | 30 |", "| DRAM | 700 | 700 |", "| shared load | 20 | 20 |",
            "| dram_read | 900 ± 1.5 | 90 | 1000 | 90 % |",  # 900 GB/s over 10 SMs at 1 GHz: 90 B/clk/SM
            "| fp32_fma | 125 | ops/clk/SM | 128 | 97.7 % | - |",
            "| global_load_coalesced | 2.5 | requests/clk/SM | - | - | 10 |",
            "| departure delay, coalesced (direct: completion-time slope) | 18.5 ± 1.2 | cycles |",
            "| departure delay, coalesced (thesis eq 4.25) | 0.3 | cycles |",
            "| barrier (bar.sync), 32 warps | 75 | cycles |",
            # The tensor stage: what the profile has, "not measured" for the rest.
            "| wgmma | f16 | 128 | 3900 | 4096 | 95.2 % | 39 | 41 | 95 % | valid |",
            "| mma_sync | f16 | 33 | not measured | not measured | - | not measured | not measured | - | valid |",
            "| wgmma_sp | s8 | not measured | not measured |",
            "37 Tops/s (90 % of spec at size 8192); wgmma FP16 over it: 1.05.",
            "| tma.load_2d | not measured | not measured | not measured | - |",
            "| 2 | not measured | not measured | 190 | not measured | not measured |",
            "| **hopper** | 20 | 20 % | 10 % | 100 % | 0.95 | 50 % |",
            "| leave-one-class-out, pooled | 10 | 23.5 % |",
            "| worst class: histogram (under-predicted) | 10 | 84 % |",
            "| cross-gpu other -> test | 10 | 26 % |",
            "at 64^3", "| 2 | intz-reg | 32x16x1 depth 2 tma | 0.4 | 2500 | 1 |",
            "| 256^2 | double | partitioned | 50 | 1000 | 0.4 |",
            # Every figure embedded, with its caption; one in a subfolder.
            "**roofline.png**: the roofline of the measured ceilings", "**extra.png**\n\n![extra](extra.png)\n",
            "**validation_scatter.png**: predicted against measured cycles",
            "![predicted against measured](validation_scatter.png)",
            "![launches](app-example/launches.png)",
            # The device profile's record and the last 5 runs.
            "| GPU | Test GPU |", "| UUID | GPU-dev-uuid |", "| driver | 580.1 |", "| CUDA | 13.0 |",
            "| SM clock | 1000 MHz (NVML, mean of the readings before and after the run) |",
            "| date | 2026-01-02T03:04:05Z |", "| commit | abc1234 |", "| command | `warpmodel characterize --output x` |",
            "[provenance.json](provenance.json)", "The last 5 of the 7 measuring runs",
            "| 2026-01-03T10:00:00Z | 3333333 | GPU-run-3 | build ok 100 s, adi ok 300 s |",
            "| 2026-01-07T10:00:00Z | 7777777 | GPU-run-7 | build ok 100 s, adi ok 300 s, app FAILED (exit 1) 5 s |",
        ]
        for text in expected:
            check(text in readme, f"README lacks {text!r}")
        check(readme.index("dram_read_rows_32b") < readme.index("dram_read_rows_128b"),
              "bandwidth rows not in natural order")
        figures = readme[readme.index("## Figures"):readme.index("## Provenance")]
        check(figures.count("![") == 4, f"{figures.count('![')} figures embedded, want the folder's 4 PNGs")
        history = readme[readme.index("The last 5"):]
        check("GPU-old-1" not in history and "GPU-old-2" not in history and history.count("GPU-run-7") == 1,
              "the run history is not the last 5 runs, each once")
        check(history.index("GPU-run-3") < history.index("GPU-run-4") < history.index("GPU-run-7"),
              "the runs are not in date order")
        check("No " not in readme.replace("No figures", ""), "a file is said to be missing from the full folder")
        check(tmp not in readme, "README holds the machine's temporary path")
        check(readme.endswith("|\n"), "the page does not end with the run history")

        r2 = run(repo, folder)
        check(r2.returncode == 0 and open(os.path.join(folder, "README.md"), encoding="utf-8").read() == readme,
              "a second run wrote other bytes")
        # The same files in a folder of another name and path: the same page.
        moved = os.path.join(tmp, "elsewhere", "test-gpu")
        shutil.copytree(folder, moved)
        os.remove(os.path.join(moved, "README.md"))
        r3 = run(repo, moved)
        check(r3.returncode == 0 and open(os.path.join(moved, "README.md"), encoding="utf-8").read() == readme,
              "the same files at another path gave another page")

        # With the energy stage's coefficients: each unit a row, the integer one said to be unpriced.
        energetic = os.path.join(tmp, "energetic")
        shutil.copytree(folder, energetic)
        device = json.loads(json.dumps(DEVICE))
        device["measurements"]["energy"] = {"coefficients": {"static_w": 123.6, "pj_per_fp32_op": 4.55,
                                                             "pj_per_int32_op": 12.1, "pj_per_dram_byte": 62.5}}
        write(energetic, "device.json", device)
        r = run(repo, energetic)
        page = open(os.path.join(energetic, "README.md"), encoding="utf-8").read()
        for text in ("| static power (no kernel running) | 123.6 | W |", "| FP32 operation | 4.55 | pJ |",
                     "| 32-bit integer operation | 12.1 | pJ |",
                     "| DRAM byte (beyond its L2 byte) | 62.5 | pJ |"):
            check(r.returncode == 0 and text in page, f"energy coefficients: the page lacks {text!r}")

        # A bare folder: device.json without the capacity table (cache sizes from the footprint
        # curve), no provenance.json, validation.json, stencils.csv, adi.csv, roofline.png or figures.
        bare = os.path.join(tmp, "bare")
        os.makedirs(bare)
        device = json.loads(json.dumps(DEVICE))
        del device["measurements"]["capacity"]
        for section in ("tensor_cores", "library_gemm", "cluster"):
            del device["measurements"][section]
        curve = []
        for kib in (4, 16, 64, 128, 192, 256, 512, 4096, 32768, 49152, 65536, 131072, 1048576):
            ca = 30 if kib <= 192 else 300 if kib <= 32768 else 700
            cg = 300 if kib <= 32768 else 450 if kib <= 49152 else 700
            curve.append({"footprint_bytes": kib * 1024, "ca": {"mean_cycles": ca}, "cg": {"mean_cycles": cg}})
        device["measurements"]["footprint_curve"] = curve
        write(bare, "device.json", device)
        r = run(repo, bare)
        check(r.returncode == 0, f"bare folder: exit {r.returncode}: {r.stderr}")
        page = open(os.path.join(bare, "README.md"), encoding="utf-8").read()
        check("# Test GPU (embedded)\n" in page, "bare folder: the name is not device.json's provenance.gpu")
        for text in ["| L1 | 192 KiB per SM, footprint plateau |", "| L2 | 48 MiB by the footprint plateau |",
                     "## Tensor cores, TMA and clusters\n\nNot measured: this device.json has no tensor stage",
                     "_No roofline.png in this folder", "_No validation.json in this folder",
                     "_No stencils.csv in this folder", "_No adi.csv in this folder",
                     "_No provenance.json in this folder", "_No figures (*.png) in this folder._"]:
            check(text in page, f"bare folder: README lacks {text!r}")
        for line in page.splitlines():
            if line.startswith("_No "):
                check(len(line) <= 120, f"bare folder: a long missing-file line: {line!r}")
        check(sum(line.startswith("_No ") for line in page.splitlines()) == 6,
              "bare folder: not one short line per missing file")
        check(page.rstrip("\n").endswith("writes it)._"), "bare folder: the page does not end with the provenance line")

        # Bad input: one line on stderr, exit 2, the README left as it was.
        for name, text, what in (("validation.json", '{"summaries": [', "validation.json: not valid JSON"),
                                 ("provenance.json", '{"outputs": {}', "provenance.json: not valid JSON"),
                                 ("provenance.json", '{"schema": "other/1", "outputs": {}}', "warpmodel.provenance/1"),
                                 ("provenance.json", json.dumps(dict(PROVENANCE, runs={"a": 1})), "a list of runs"),
                                 ("device.json", "[1, 2]", "expected a JSON object"),
                                 ("stencils.csv", "n,order\nx,2\n", "stencils.csv")):
            saved = open(os.path.join(folder, name), encoding="utf-8").read()
            write(folder, name, text)
            r = run(repo, folder)
            check(r.returncode == 2, f"bad {name}: exit {r.returncode}")
            check(r.stderr.count("\n") == 1 and what in r.stderr and r.stderr.startswith("gpu_report: "),
                  f"bad {name}: stderr {r.stderr!r}")
            check(open(os.path.join(folder, "README.md"), encoding="utf-8").read() == readme,
                  f"bad {name}: the README was rewritten")
            write(folder, name, saved)
        r = run(repo, os.path.join(tmp, "no-such-folder"))
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and "no such folder" in r.stderr,
              f"missing folder: exit {r.returncode}, stderr {r.stderr!r}")
        check(not os.path.exists(os.path.join(tmp, "no-such-folder")), "missing folder: something was written")

    for f in failures:
        print("FAIL:", f)
    print(f"gpu_report: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
