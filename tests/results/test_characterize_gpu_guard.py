#!/usr/bin/env python3
"""results.characterize_gpu_guard: scripts/characterize_gpu.sh refuses a folder of another GPU model.

A GPU machine asked for as one model can come with another (an H100 for an H200); a script that names
results/h200 would then write the H100's numbers there. With a stand-in nvidia-smi on PATH (no GPU needed):
- a folder whose provenance.json names another GPU (its newest run): exit 2, one line naming both GPUs and
  the folder this GPU's results belong in, and the folder exactly as it was (nothing half-written);
- the same folder with --other-gpu, a folder of this GPU and a folder with no provenance: past the check
  (the stage starts; it fails here, with no build, which is not what this test looks at);
- no GPU (nvidia-smi lists none): exit 3 with one line.
usage: test_characterize_gpu_guard.py REPO
"""
import os
import subprocess
import sys
import tempfile

FAKE_SMI = """#!/bin/sh
[ -n "$FAKE_NO_GPU" ] && exit 9
case "$*" in
  *-L*) echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-test)" ;;
  *) echo "NVIDIA H100 80GB HBM3, GPU-test, 580.00, 1980" ;;
esac
"""


def snapshot(folder):
    files = {}
    for root, _, names in os.walk(folder):
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                files[os.path.relpath(p, folder)] = f.read()
    return files


def provenance(folder, gpu):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "provenance.json"), "w") as f:
        f.write('{"schema": "warpmodel.provenance/1", "outputs": {}, "runs": [\n'
                ' {"gpu": "%s", "gpu_uuid": "GPU-old", "driver": "580", "cuda": "13.0",\n'
                '  "commit": "abc1234", "command": "scripts/characterize_gpu.sh"}]}\n' % gpu)


def main():
    repo = sys.argv[1]
    script = os.path.join(repo, "scripts", "characterize_gpu.sh")
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        bin_dir = os.path.join(tmp, "bin")
        os.makedirs(bin_dir)
        smi = os.path.join(bin_dir, "nvidia-smi")
        with open(smi, "w") as f:
            f.write(FAKE_SMI)
        os.chmod(smi, 0o755)
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"],
                   WARPMODEL_BUILD_DIR=os.path.join(tmp, "no-build"), WARPMODEL_GIT_COMMIT="test")

        def run(*args, extra_env=None):
            return subprocess.run(["bash", script, *args], env=dict(env, **(extra_env or {})),
                                  capture_output=True, text=True, timeout=60)

        other = os.path.join(tmp, "h200")
        provenance(other, "NVIDIA H200")
        before = snapshot(other)
        r = run("--only", "gpu-tests", other)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2, f"another GPU's folder: exit {r.returncode}, expected 2 ({r.stderr!r})")
        check(len(lines) == 1, f"another GPU's folder: {len(lines)} lines on stderr, expected 1: {r.stderr!r}")
        check("NVIDIA H200" in r.stderr and "NVIDIA H100 80GB HBM3" in r.stderr
              and "results/h100-80gb-hbm3" in r.stderr and "--other-gpu" in r.stderr,
              f"the refusal names both GPUs, this GPU's folder and the override: {r.stderr!r}")
        check(snapshot(other) == before, "another GPU's folder changed after the refusal")

        r = run("--other-gpu", "--only", "gpu-tests", other)
        check(r.returncode != 2 and "gpu-tests: start" in r.stderr,
              f"--other-gpu: the stage should start (exit {r.returncode}): {r.stderr!r}")

        same = os.path.join(tmp, "h100-80gb-hbm3")
        provenance(same, "NVIDIA H100 80GB HBM3")
        r = run("--only", "gpu-tests", same)
        check(r.returncode != 2 and "gpu-tests: start" in r.stderr,
              f"this GPU's own folder: the stage should start (exit {r.returncode}): {r.stderr!r}")

        fresh = os.path.join(tmp, "fresh")
        r = run("--only", "gpu-tests", fresh)
        check(r.returncode != 2 and "gpu-tests: start" in r.stderr,
              f"a folder with no provenance: the stage should start (exit {r.returncode}): {r.stderr!r}")

        empty = os.path.join(tmp, "no-gpu")
        r = run("--only", "gpu-tests", empty, extra_env={"FAKE_NO_GPU": "1"})
        check(r.returncode == 3 and len(r.stderr.strip().splitlines()) == 1 and "no NVIDIA GPU" in r.stderr,
              f"no GPU: exit {r.returncode}, expected 3 with one line: {r.stderr!r}")
        check(not os.path.exists(empty), "no GPU: the folder was created")

    for f in failures:
        print("FAIL:", f)
    print("results.characterize_gpu_guard:", "failed" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
