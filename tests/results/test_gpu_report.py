#!/usr/bin/env python3
"""results.gpu_report: scripts/gpu_report.py on small hand-written folders.

A folder with a minimal device.json and validation.json: every section from those files, a line for
each file that is missing (characterize_gpu.provenance.json, stencils.csv, adi.csv), the figures
linked, the same README from two runs, no path of the machine in it. Then the same folder with the
run's provenance and the stencil/ADI tables, and bad input (exit 2, one line, no README).
usage: test_gpu_report.py REPO
"""
import json
import os
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
    "provenance": {"gpu": "Test GPU", "driver": "580.1", "cuda_runtime": "13000", "date": "2026-01-02T03:04:05Z",
                   "commit": "abc1234", "command": "warpmodel characterize"},
    "measurements": {
        "bandwidth": {"dram_read": {"gbs": 900, "u_gbs": 1.5, "spec_gbs": 1000, "fraction_of_spec": 0.9}},
        "throughput": {"fp32_fma": {"ops_per_clk_per_sm": 125, "spec_ops_per_clk_per_sm": 128,
                                    "fraction_of_spec": 0.9765625, "u": 0.1},
                       "global_load_coalesced": {"requests_per_clk_per_sm": 2.5, "sectors_per_clk_per_sm": 10}},
        "departure_delay": {"thesis_eq_4_25_coalesced": 0.3, "departure_coalesced": {"u_cycles": 1.25}},
        "barrier": {"cycles_32_warps": 75},
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


def run(repo, folder):
    return subprocess.run([sys.executable, os.path.join(repo, "scripts/gpu_report.py"), folder],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def write_json(folder, name, value):
    with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
        json.dump(value, f)


def main():
    repo = os.path.abspath(sys.argv[1])
    failures = []

    def check(condition, what):
        if not condition:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "test-gpu")
        os.makedirs(folder)
        write_json(folder, "device.json", DEVICE)
        write_json(folder, "validation.json", VALIDATION)
        open(os.path.join(folder, "validation_scatter.png"), "wb").close()
        open(os.path.join(folder, "extra.png"), "wb").close()

        r = run(repo, folder)
        check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
        readme = open(os.path.join(folder, "README.md"), encoding="utf-8").read()
        expected = [
            "# Test GPU\n",
            "## The GPU",
            "_characterize_gpu.provenance.json is missing",
            "| driver | 580.1 |",
            "| commit | abc1234 |",
            "10 SMs at 1000 MHz, compute capability 9.0, peak DRAM bandwidth 1000 GB/s",
            "## Latency by level",
            "| L1 hit | 30 | 30 |",          # cycles, ns at 1000 MHz
            "| DRAM | 700 | 700 |",
            "| shared load | 20 | 20 |",
            "## Bandwidth",
            "| dram_read | 900 ± 1.5 | 90 | 1000 | 90 % |",  # 900 GB/s over 10 SMs at 1 GHz: 90 B/clk/SM
            "## Issue rates and LSU throughput",
            "| fp32_fma | 125 | ops/clk/SM | 128 | 97.7 % |",
            "| global_load_coalesced | 2.5 | requests/clk/SM | - | - | 10 sectors/clk/SM |",
            "## Departure delays, barrier, launch",
            "| departure delay, coalesced (direct: completion-time slope) | 18.5 ± 1.2 | cycles |",
            "| departure delay, coalesced (thesis eq 4.25) | 0.3 | cycles |",
            "| barrier (bar.sync), 32 warps | 75 | cycles |",
            "## Model accuracy",
            "| **hopper** | 20 | 20 % | 10 % | 100 % | 0.95 | 50 % |",
            "| leave-one-class-out, pooled | 10 | 23.5 % |",
            "| worst class: histogram (under-predicted) | 10 | 84 % |",
            "| cross-gpu other -> test | 10 | 26 % |",
            "## Best stencil and ADI variants",
            "_Skipped: stencils.csv is missing",
            "_Skipped: adi.csv is missing",
            "## Figures",
            "- [extra.png](extra.png): figure\n",
            "- [validation_scatter.png](validation_scatter.png): predicted against measured cycles",
        ]
        for text in expected:
            check(text in readme, f"README lacks {text!r}")
        check(readme.index("## The GPU") < readme.index("## Latency by level") < readme.index("## Model accuracy")
              < readme.index("## Best stencil") < readme.index("## Figures"), "sections out of order")
        check(tmp not in readme, "README holds the machine's temporary path")

        r2 = run(repo, folder)
        check(r2.returncode == 0 and open(os.path.join(folder, "README.md"), encoding="utf-8").read() == readme,
              "a second run wrote another README")

        # With the run's provenance and the stencil and ADI tables.
        write_json(folder, "characterize_gpu.provenance.json",
                   {"gpu": "Test GPU", "gpu_uuid": "GPU-1234", "driver": "580.2", "cuda": "13.0",
                    "date": "2026-01-03T00:00:00Z", "commit": "def5678", "command": "scripts/characterize_gpu.sh x",
                    "stages": {"characterize": {"status": 0, "seconds": 30}, "app": {"status": 1, "seconds": 5}}})
        with open(os.path.join(folder, "stencils.csv"), "w", encoding="utf-8") as f:
            f.write("n,order,variant,block,depth,loader,ms_per_step,effective_bytes_per_second,fraction_of_copy\n"
                    "64,2,naive,32x8x1,,,0.5,2e12,0.8\n64,2,intz-reg,32x16x1,2,tma,0.4,2.5e12,1.0\n"
                    "32,2,shared,32x8x1,,,0.01,1e12,0.4\n")
        with open(os.path.join(folder, "adi.csv"), "w", encoding="utf-8") as f:
            f.write("variant,precision,n,kernel,median_us,effective_gbs,fraction_of_copy\n"
                    "thread-per-line,double,256,step,100,500,0.2\npartitioned,double,256,step,50,1000,0.4\n"
                    "partitioned,double,256,solve-x,5,900,0.3\n")
        r = run(repo, folder)
        check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
        readme = open(os.path.join(folder, "README.md"), encoding="utf-8").read()
        for text in ["| UUID | GPU-1234 | - |", "| driver | 580.2 | 580.1 |",
                     "Stages of the characterize_gpu.sh run: characterize ok, 30 s; app FAILED (exit 1), 5 s.",
                     "at 64^3", "| 2 | intz-reg | 32x16x1 depth 2 tma | 0.4 | 2500 | 1 |",
                     "| 256^2 | double | partitioned | 50 | 1000 | 0.4 |"]:
            check(text in readme, f"README (full folder) lacks {text!r}")
        check("is missing" not in readme, "a file is said to be missing from the full folder")

        # Bad input: one line on stderr, exit 2, the README left as it was.
        with open(os.path.join(folder, "validation.json"), "w", encoding="utf-8") as f:
            f.write('{"summaries": [')
        r = run(repo, folder)
        check(r.returncode == 2, f"malformed validation.json: exit {r.returncode}")
        check(r.stderr.count("\n") == 1 and "validation.json: not valid JSON" in r.stderr,
              f"malformed validation.json: stderr {r.stderr!r}")
        check(open(os.path.join(folder, "README.md"), encoding="utf-8").read() == readme,
              "malformed validation.json: the README was rewritten")
        r = run(repo, os.path.join(tmp, "no-such-folder"))
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and "no such folder" in r.stderr,
              f"missing folder: exit {r.returncode}, stderr {r.stderr!r}")

    for f in failures:
        print("FAIL:", f)
    print(f"gpu_report: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
