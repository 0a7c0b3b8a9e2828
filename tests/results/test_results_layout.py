#!/usr/bin/env python3
"""results.layout: results/ holds outputs only, each with its provenance record, within its size budget.

- every file under results/ has a record in its folder's provenance.json and every record a file
  (scripts/provenance_index.py check);
- at most 300 files under results/, at most 60 entries in a GPU's folder, no code files;
- every PNG under 300 KB;
- a full re-measure of one GPU adds at most 2 MiB to the repository: the compressed size of every
  file a default characterize_gpu.sh run rewrites (an .xz or PNG file as it is, since git cannot
  compress it further or store it as a delta; any other file as zlib compresses it, which bounds what
  git stores for a version whose every number changed).
Folders and files whose names start with "." are work folders git ignores (external/.work and .logs,
.characterize): not committed, so not counted (provenance_index.py skips them too).
usage: test_results_layout.py REPO
"""
import fnmatch
import os
import subprocess
import sys
import zlib

MAX_FILES = 300
MAX_GPU_ENTRIES = 60
MAX_PNG_BYTES = 300 * 1024
MAX_REMEASURE_BYTES = 2 * 1024 * 1024
CODE = (".sh", ".py", ".patch", ".diff", ".cu", ".cuh", ".cpp", ".hpp", ".c", ".h")
# Written only by stages a default characterize_gpu.sh run leaves out, or by other scripts (the
# external set: scripts/external_suite.sh; the FWI's phases and the run commands' energy:
# scripts/fwi_device_run.sh, about 0.2 MiB compressed; each a run of its own).
NOT_REWRITTEN = ["cupti-vs-ncu-runs/*", "cupti-vs-ncu.*", "wavefield.png", "stencils.trace.csv", "metrics.*",
                 "repeatability.md", "external/*", "fwi/*", "fwi.md", "fwi.csv", "energy/*", "energy.md",
                 "energy.csv"]


def stored_bytes(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith((".xz", ".png", ".cubin")):
        return len(data)
    return len(zlib.compress(data, 6))


def walk(top):
    """(root, names) of the committed layout: names starting with "." (ignored work folders) left out."""
    for root, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        yield root, sorted(n for n in names if not n.startswith("."))


def main():
    repo = os.path.abspath(sys.argv[1])
    results = os.path.join(repo, "results")
    failures = []
    check = subprocess.run([sys.executable, os.path.join(repo, "scripts", "provenance_index.py"), "check", results],
                           capture_output=True, text=True)
    if check.returncode != 0:
        failures.append("provenance_index.py check:\n" + check.stderr.strip())
    files = [os.path.join(root, f) for root, names in walk(results) for f in names]
    if len(files) > MAX_FILES:
        failures.append(f"{len(files)} files under results/, at most {MAX_FILES}")
    failures += [f"{os.path.relpath(f, repo)}: a code file under results/ (scripts/ is its place)"
                 for f in files if f.endswith(CODE)]
    failures += [f"{os.path.relpath(f, repo)}: {os.path.getsize(f)} bytes, a plot may weigh {MAX_PNG_BYTES}"
                 for f in files if f.endswith(".png") and os.path.getsize(f) > MAX_PNG_BYTES]
    for gpu in sorted(os.listdir(results)):
        folder = os.path.join(results, gpu)
        if not os.path.isfile(os.path.join(folder, "device.json")):
            continue
        entries = [e for e in os.listdir(folder) if not e.startswith(".")]
        if len(entries) > MAX_GPU_ENTRIES:
            failures.append(f"results/{gpu}: {len(entries)} entries, at most {MAX_GPU_ENTRIES}")
        total = 0
        for root, names in walk(folder):
            for name in names:
                rel = os.path.relpath(os.path.join(root, name), folder)
                if rel == "provenance.json" or any(fnmatch.fnmatch(rel, p) for p in NOT_REWRITTEN):
                    continue
                total += stored_bytes(os.path.join(root, name))
        print(f"results/{gpu}: {len(entries)} entries; a full re-measure adds at most {total / 2**20:.3f} MiB")
        if total > MAX_REMEASURE_BYTES:
            failures.append(f"results/{gpu}: a full re-measure would add {total / 2**20:.2f} MiB, at most "
                            f"{MAX_REMEASURE_BYTES / 2**20:.0f} MiB (docs/results-layout.md)")
    print(f"results/: {len(files)} files")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
