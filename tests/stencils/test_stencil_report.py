#!/usr/bin/env python3
"""ctest: scripts/stencil_report.py on committed fixtures (synthetic numbers, not measurements).
usage: test_stencil_report.py SCRIPT FIXTURES"""
import os
import subprocess
import sys
import tempfile


def run(script, *args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


def main():
    script, fixtures = sys.argv[1], sys.argv[2]
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        md, csv = os.path.join(tmp, "s.md"), os.path.join(tmp, "s.csv")
        r = run(script, "bench", "--json", os.path.join(fixtures, "bench_small.json"), "--provenance",
                os.path.join(fixtures, "provenance.json"), "--md", md, "--csv", csv)
        expect(r.returncode == 0, f"bench exit {r.returncode}: {r.stderr}")
        text = open(md).read() if os.path.exists(md) else ""
        # Copy reference = mean of the medians 4.2e12 and 3.8e12 = 4000 GB/s; the mean aggregate is ignored.
        expect("**4000.0**" in text, "copy reference is the mean of the two medians")
        # 64^3, order 2: intz-reg best block 32x8x1 depth 2 at 3.6e12 / 4e12 = 0.900; naive best 0.500 (32x4x1).
        expect("0.900 (3600 GB/s" in text and "32x8x1 d2 tma" in text, "best intz-reg cell at 64^3 order 2")
        expect("0.500 (2000 GB/s" in text and "32x4x1" in text, "best naive cell")
        # Targets at the largest size (64): order 2 met (0.9 >= 0.85); order 16 missed: 0.65 vs 0.70.
        expect("| 2 | 0.85 | intz-reg | 32x8x1 d2 tma | 0.900 | 3600 | met |" in text, "order 2 target met")
        expect("| 16 | 0.70 | intz-reg | 16x8x1 d2 cp-async | 0.650 | 2600 | missed by 0.050 |" in text,
               "order 16 target missed")
        expect("| 4 | 0.85 | not measured" in text, "unmeasured order reported as such")
        expect("the TMA tile box would be 272 x 20 floats" in text, "refused launches listed")
        expect("fixture GPU" in text, "provenance included")
        rows = open(csv).read().splitlines() if os.path.exists(csv) else []
        expect(len(rows) == 1 + 8, f"CSV has one row per median stencil benchmark (got {len(rows)})")
        expect("targets missed at orders [16]" in r.stdout, "summary line names the missed order")

        # With a device profile: the references and the fraction of the theoretical peak (3600 / 4800).
        md3 = os.path.join(tmp, "d.md")
        r = run(script, "bench", "--json", os.path.join(fixtures, "bench_small.json"), "--device",
                os.path.join(fixtures, "device.json"), "--md", md3, "--csv", os.path.join(tmp, "d.csv"))
        t3 = open(md3).read() if os.path.exists(md3) else ""
        expect(r.returncode == 0 and "| ubench dram_read kernel | 4400.0 | 0.909 |" in t3, f"device references: {r.stderr}")
        expect("| 2 | 0.85 | intz-reg | 32x8x1 d2 tma | 0.900 | 3600 | 0.750 | met |" in t3, "fraction of peak")

        # Malformed input: one line, exit 2, nothing written.
        bad = os.path.join(tmp, "bad.json")
        open(bad, "w").write("{\"benchmarks\": [")
        md2 = os.path.join(tmp, "none.md")
        r = run(script, "bench", "--json", bad, "--md", md2, "--csv", os.path.join(tmp, "none.csv"))
        expect(r.returncode == 2 and r.stderr.count("\n") == 1 and "not valid JSON" in r.stderr, f"malformed: {r.stderr}")
        expect(not os.path.exists(md2), "nothing written on bad input")
        open(bad, "w").write("{\"benchmarks\": []}")
        r = run(script, "bench", "--json", bad, "--md", md2, "--csv", os.path.join(tmp, "none.csv"))
        expect(r.returncode == 2 and "no device-to-device copy" in r.stderr, f"no copy: {r.stderr}")

        # Sanitizer: memcheck clean, racecheck with one hazard in intz_reg_tma_kernel<8, 2>.
        smd = os.path.join(tmp, "san.md")
        r = run(script, "sanitizer", "--log", "memcheck=" + os.path.join(fixtures, "memcheck.log"), "--log",
                "racecheck=" + os.path.join(fixtures, "racecheck.log"), "--command", "compute-sanitizer ...",
                "--md", smd)
        expect(r.returncode == 0 and "FAILURES" in r.stdout, f"sanitizer: {r.stdout} {r.stderr}")
        s = open(smd).read() if os.path.exists(smd) else ""
        expect("| memcheck | 2 | ERROR SUMMARY: 0 errors | passed | pass |" in s, "memcheck row")
        expect("| racecheck | 2 |" in s and "| FAIL |" in s, "racecheck row fails")
        expect("| `intz_reg_tma_kernel<8, 2>` | 0 (5e-08) | 1 (5e-08) |" in s, "hazard attributed to its kernel")
        expect("| `naive_kernel<1>` | 0 (3.1e-08) | 0 (3.1e-08) |" in s, "clean kernel")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("stencil_report tests passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
