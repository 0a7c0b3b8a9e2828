#!/usr/bin/env python3
"""results.regenerate: the committed model-only outputs are what the current code writes.

Copies results/, model/data and scripts/ into a temporary tree, runs scripts/regenerate_results.sh
there with the freshly built program, and compares every file it wrote with the committed one.
Normalised before comparing: ISO dates and times, commit hashes (and "unknown" where the copy has no
git metadata). PNGs are compared byte for byte when this machine's matplotlib is the version that
drew the committed file (its Software chunk says which); otherwise only their pixel size is
compared, and the test says so.
usage: test_regenerated_results.py REPO WARPMODEL_BIN
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

DATE = re.compile(r"\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\dZ)?")
COMMIT = re.compile(r"\b(?:[0-9a-f]{7,40}|unknown)\b")


def normalise(text):
    return COMMIT.sub("<commit>", DATE.sub("<date>", text)).replace("<commit> (<date>)", "<commit>")


def png_info(path):
    """(width, height, software) of a PNG."""
    with open(path, "rb") as f:
        data = f.read()
    width, height = struct.unpack(">II", data[16:24])
    software, pos = "", 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"tEXt" and body.startswith(b"Software\0"):
            software = body.split(b"\0", 1)[1].decode("latin-1")
        elif kind == b"zTXt" and body.startswith(b"Software\0"):
            software = zlib.decompress(body.split(b"\0", 1)[1][1:]).decode("latin-1")
        pos += 12 + length
    return width, height, software


def main():
    repo, binary = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    import matplotlib
    local_software = "Matplotlib version" + matplotlib.__version__
    failures, notes, compared = [], [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for part in ("results", "model/data", "scripts"):
            shutil.copytree(os.path.join(repo, part), os.path.join(tmp, part))
        start = time.time() - 1
        env = dict(os.environ, WARPMODEL_BIN=binary, MPLBACKEND="Agg")
        run = subprocess.run(["bash", "scripts/regenerate_results.sh"], cwd=tmp, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if run.returncode != 0:
            print(run.stdout)
            print(f"FAIL: scripts/regenerate_results.sh exited {run.returncode}")
            return 1
        for root, _, files in os.walk(os.path.join(tmp, "results")):
            for name in sorted(files):
                fresh = os.path.join(root, name)
                if os.path.getmtime(fresh) < start:
                    continue  # not written by the script: a measured file
                rel = os.path.relpath(fresh, tmp)
                committed = os.path.join(repo, rel)
                compared += 1
                if not os.path.exists(committed):
                    failures.append(f"{rel}: written by the script but not committed")
                    continue
                if name.endswith(".png"):
                    w1, h1, sw = png_info(committed)
                    w2, h2, _ = png_info(fresh)
                    if sw and not sw.startswith(local_software + ","):
                        notes.append(f"{rel}: drawn by {sw}, this machine has {local_software}: pixel size compared only")
                        if (w1, h1) != (w2, h2):
                            failures.append(f"{rel}: {w2}x{h2} pixels, committed {w1}x{h1}")
                    elif open(fresh, "rb").read() != open(committed, "rb").read():
                        failures.append(f"{rel}: differs from the committed image (same matplotlib)")
                    continue
                a = normalise(open(committed, encoding="utf-8", errors="replace").read())
                b = normalise(open(fresh, encoding="utf-8", errors="replace").read())
                if a != b:
                    la, lb = a.splitlines(), b.splitlines()
                    first = next((i for i in range(max(len(la), len(lb)))
                                  if i >= len(la) or i >= len(lb) or la[i] != lb[i]), 0)
                    failures.append(f"{rel}: differs from the committed file at line {first + 1}: "
                                    f"committed {la[first] if first < len(la) else '<end>'!r}, "
                                    f"regenerated {lb[first] if first < len(lb) else '<end>'!r}")
    for n in notes:
        print("note:", n)
    for f in failures:
        print("FAIL:", f)
    print(f"{compared} regenerated files compared, {len(failures)} differ")
    if compared == 0:
        print("FAIL: the script wrote nothing")
        return 1
    if failures:
        print("Run scripts/run.sh (or scripts/regenerate_results.sh) and commit the results it writes.")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
