#!/usr/bin/env python3
"""results.external_suite: scripts/external_suite.sh's CPU part (--build-only) on a hand-made list.

Two applications: one whose build line succeeds (it writes a file in its folder), one whose build
fails; both get a status.txt with the build's exit code and seconds (the failure with its reason) and a
build log, and the call exits 0 (a failure is recorded, the next application goes on). --no-tables is
accepted. Bad options and a list naming no such application exit 2 with one line (an unknown option
with the usage). No GPU is needed: a stand-in nvcc is put on the PATH.
usage: test_external_suite.py REPO
"""
import os
import subprocess
import sys
import tempfile

HEADER = "name\tsuite\tfolder\tbuild\trun\thalf\tprofile_options"


def status(path):
    out = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("\t")
            out[key] = value
    return out


def main():
    repo = os.path.abspath(sys.argv[1])
    script = os.path.join(repo, "scripts", "external_suite.sh")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        src, out, tools = os.path.join(tmp, "src"), os.path.join(tmp, "out", "external"), os.path.join(tmp, "tools")
        for d in ("hecbench/src/alpha-cuda", "rodinia/cuda/beta", ""):
            os.makedirs(os.path.join(src, d) if d else tools, exist_ok=True)
        with open(os.path.join(tools, "nvcc"), "w") as f:
            f.write("#!/bin/sh\necho 'Cuda compilation tools, release 13.0, V13.0.88'\n")
        os.chmod(os.path.join(tools, "nvcc"), 0o755)
        lst = os.path.join(tmp, "suite.list")
        with open(lst, "w") as f:
            f.write("# a test list\n" + HEADER + "\n"
                    "alpha\thecbench\thecbench/src/alpha-cuda\techo built > built.txt\t./main\tdevelopment\t-\n"
                    "beta\trodinia\trodinia/cuda/beta\techo 'error: no such header' >&2; exit 3\t./b\theld-out\t--launch-count 9\n")
        env = dict(os.environ, PATH=tools + os.pathsep + os.environ.get("PATH", ""))

        def run(*args):
            return subprocess.run(["bash", script, src, lst, out] + list(args), capture_output=True, text=True, env=env)

        r = run("--build-only", "--jobs", "2", "--no-tables")
        if r.returncode != 0:
            failures.append(f"--build-only: exit {r.returncode}: {r.stderr.strip()}")
        alpha = os.path.join(out, ".work", "alpha", "status.txt")
        beta = os.path.join(out, ".work", "beta", "status.txt")
        if not os.path.exists(os.path.join(src, "hecbench/src/alpha-cuda/built.txt")):
            failures.append("alpha's build line did not run in its folder")
        if not os.path.exists(alpha) or status(alpha).get("build_exit") != "0" or "run_exit" in status(alpha):
            failures.append(f"alpha's status: {status(alpha) if os.path.exists(alpha) else 'missing'}")
        b = status(beta) if os.path.exists(beta) else {}
        if b.get("build_exit") != "3" or "no such header" not in b.get("build_reason", ""):
            failures.append(f"beta's status: {b}; want build_exit 3 and the log's error line as the reason")
        for name in ("alpha", "beta"):
            if not os.path.exists(os.path.join(out, ".logs", f"{name}.build.log")):
                failures.append(f"{name}: no build log")
        if "FAILED" not in r.stdout or "beta" not in r.stdout:
            failures.append(f"the failed build is not reported: {r.stdout!r}")
        for args, why in ((["--jobs", "0"], "--jobs"), (["--half", "both"], "--half"), (["--build-only", "--only", "gamma"], "gamma"),
                          (["--timeout", "soon"], "--timeout")):
            r = run(*args)
            if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1 or why not in r.stderr:
                failures.append(f"{args}: exit {r.returncode}, stderr {r.stderr.strip()!r}; want exit 2, one line naming {why}")
        r = run("--no-such-option")
        if r.returncode != 2 or "unknown option --no-such-option" not in r.stderr or "--no-tables" not in r.stderr:
            failures.append(f"unknown option: exit {r.returncode}, {r.stderr.strip()!r}; want exit 2 and the usage")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("external_suite: builds recorded per application (a failure with its reason), bad options refused")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
