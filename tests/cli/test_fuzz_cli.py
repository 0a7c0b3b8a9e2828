#!/usr/bin/env python3
"""cli.fuzz: a bounded mutation fuzz test of warpmodel's readers through the program itself.

A few thousand mutants (fixed seed) of the committed inputs -- device and kernel profiles, a
validation-measurements file, a CUPTI profile (counters) -- are fed to the subcommands that read
them. Every run must end in exit 0 (the mutant was still valid) or exit 2 with exactly one line on
stderr and no output file; never a signal, never exit 1 (an internal error), never a half-written
output. Mutations: byte flips, deleted / duplicated spans, inserted JSON tokens and deep nesting,
numbers replaced by extreme values, truncation.
usage: test_fuzz_cli.py REPO WARPMODEL_BIN [MUTANTS]
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

SEED = 20261124
TOKENS = ['[', ']', '{', '}', ',', ':', '"', 'null', 'true', '-1', '0', '1e999', '-1e999', '1e-400', 'NaN',
          '""', '"x"', '[]', '{}', '9223372036854775808', '[' * 200, '{"a":' * 100, '\\u0000', '\x00', '\xff']
EXTREMES = ['-0', '0', '-1', '1e308', '-1e308', '1e-320', '4294967296', '99999999999999999999', '2147483648',
            '0.5', '-0.5', '3.5e9', '1e15', '1e16']
NUMBER = re.compile(r'-?\d+(\.\d+)?([eE][-+]?\d+)?')


def mutate(text, rng):
    n = len(text)
    kind = rng.randrange(7)
    i = rng.randrange(n) if n else 0
    if kind == 0:  # flip a byte
        return text[:i] + chr(rng.randrange(32, 127)) + text[i + 1:]
    if kind == 1:  # delete a span
        return text[:i] + text[i + rng.randrange(1, 64):]
    if kind == 2:  # duplicate a span
        j = min(n, i + rng.randrange(1, 200))
        return text[:j] + text[i:j] + text[j:]
    if kind == 3:  # insert a token
        return text[:i] + rng.choice(TOKENS) + text[i:]
    if kind == 4:  # a number becomes an extreme one
        numbers = list(NUMBER.finditer(text))
        if not numbers:
            return text[:i]
        m = rng.choice(numbers)
        return text[:m.start()] + rng.choice(EXTREMES) + text[m.end():]
    if kind == 5:  # truncate
        return text[:i]
    # several mutations at once
    for _ in range(rng.randrange(2, 6)):
        text = mutate(text, rng) if text else text
    return text


def main():
    repo, binary = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    mutants = int(sys.argv[3]) if len(sys.argv) > 3 else 2400
    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory() as tmp:
        # The seeds: committed inputs, kept small so that each run is quick.
        device_h200 = open(os.path.join(repo, "results/h200/device.json")).read()
        device_k40 = open(os.path.join(repo, "model/data/k40-thesis.device.json")).read()
        kernel = open(os.path.join(repo, "model/data/stencil-order2-k40-thesis.kernel.json")).read()
        measured = json.load(open(os.path.join(repo, "results/h200/validation-measurements.json")))
        cases = [c for c in measured["cases"] if c["size"] in ("50^3", "256^2")][:24]
        for c in cases:
            c.pop("counters", None)
        measurements = json.dumps({"schema": measured["schema"], "provenance": measured["provenance"],
                                   "cases": cases}, indent=1)
        collection = json.load(open(os.path.join(repo, "results/h200/metrics.json")))
        profile = collection["profiles"][0]
        profile["launches"] = [l for l in profile["launches"] if "naive_kernel" in l["kernel"]][:2]
        counters = json.dumps(profile, indent=1)
        fixtures = os.path.join(repo, "tests/profiles/sass/fixtures/sm90_stencils")
        sass = ["--sass", fixtures + ".sass", "--cfg", fixtures + ".cfg.dot", "--res-usage", fixtures + ".res-usage.txt"]

        ncu_dir = os.path.join(repo, "tests/profiles/cupti/fixtures/ncu-comparison")
        ncu_csv = open(os.path.join(ncu_dir, "ncu-0.csv"), encoding="utf-8").read()

        def paths(name):
            return os.path.join(tmp, name)

        # (seed text, file it is written to, command builder(input path, output path), output is a folder)
        targets = [
            (device_h200, "device.json", lambda f, o: ["predict", "--device", f, "--kernel", paths("kernel0.json"),
                                                       "--model", "all", "--format", "json", "-o", o], False),
            (device_k40, "device.json", lambda f, o: ["sweep", "--device", f, "--kernel", paths("kernel0.json"),
                                                      "--top", "3", "-o", o], False),
            (kernel, "kernel.json", lambda f, o: ["predict", "--device", paths("device0.json"), "--kernel", f,
                                                  "--model", "all", "--format", "csv", "-o", o], False),
            (kernel, "kernel.json", lambda f, o: ["sweep", "--device", paths("device_h200.json"), "--kernel", f,
                                                  "--model", "hopper", "-o", o], False),
            (measurements, "validation-measurements.json",
             lambda f, o: ["validate", "--from", os.path.dirname(f), "-o", o], True),
            (counters, "counters.json", lambda f, o: ["kernel-profile"] + sass + ["--kernel", "naive_kernel<1>",
                                                      "--counters", f, "-o", o], False),
            (ncu_csv, "ncu-0.csv", lambda f, o: ["compare-ncu", "--from", os.path.dirname(f), "-o", o], False),
        ]
        # Readers added later draw their mutants from their own generator, after the others, so that the
        # mutants above stay the ones they always were.
        later_targets = [
            (device_k40, "device.json", lambda f, o: ["compare-devices", paths("device_h200.json"), f,
                                                      "--format", "markdown", "-o", o], False),
        ]
        later_rng, later_mutants = random.Random(SEED + 1), max(1, mutants // 10)

        def all_mutants():
            for n in range(mutants):
                target = targets[n % len(targets)]
                yield n, target, mutate(target[0], rng)
            for n in range(later_mutants):
                target = later_targets[n % len(later_targets)]
                yield mutants + n, target, mutate(target[0], later_rng)

        open(paths("kernel0.json"), "w").write(kernel)
        open(paths("device0.json"), "w").write(device_k40)
        open(paths("device_h200.json"), "w").write(device_h200)
        failures, outcomes, start = [], {0: 0, 2: 0}, time.time()
        for n, (seed_text, name, command, folder_output), text in all_mutants():
            case_dir = paths("case")
            shutil.rmtree(case_dir, ignore_errors=True)
            os.makedirs(case_dir)
            if name == "validation-measurements.json":
                open(os.path.join(case_dir, "device.json"), "w").write(device_h200)
            if name == "ncu-0.csv":
                for other in ("cupti-0.json", "cupti-0-repeat.json", "ncu-version.txt"):
                    shutil.copy(os.path.join(ncu_dir, other), case_dir)
            path = os.path.join(case_dir, name)
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
            out = paths("out")
            shutil.rmtree(out, ignore_errors=True)
            for p in (out, out + ".md", out + ".json"):
                if os.path.isfile(p):
                    os.remove(p)
            if folder_output:
                os.makedirs(out)
            args = [binary] + command(path, out)
            r = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
            err = r.stderr.decode("utf-8", "replace")
            # compare-ncu writes PREFIX.md and PREFIX.json; the others the file or folder named.
            wrote = (os.listdir(out) if folder_output else
                     [p for p in (out, out + ".md", out + ".json") if os.path.exists(p)])
            problem = None
            if r.returncode < 0:
                problem = f"killed by signal {-r.returncode}"
            elif r.returncode not in (0, 2):
                problem = f"exit {r.returncode}: {err.strip()[:300]}"
            elif r.returncode == 2:
                lines = err.count("\n")
                if lines != 1 or not err.strip():
                    problem = f"exit 2 with {lines} stderr lines: {err[:300]!r}"
                elif wrote:
                    problem = f"exit 2 but an output was written: {wrote}"
            elif not wrote:
                problem = "exit 0 but no output written"
            if r.returncode in outcomes:
                outcomes[r.returncode] += 1
            if problem:
                keep = paths(f"failure-{len(failures)}-{name}")
                shutil.copy(path, keep)
                failures.append(f"mutant {n} ({' '.join(command('<input>', '<out>'))}): {problem}")
        seconds = time.time() - start
    for f in failures[:20]:
        print("FAIL:", f)
    print(f"{mutants + later_mutants} mutants in {seconds:.1f} s: {outcomes[0]} still valid (exit 0), {outcomes[2]} refused "
          f"(exit 2, one line), {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
