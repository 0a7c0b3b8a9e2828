#!/usr/bin/env python3
"""results.merge_access_patterns: scripts/merge_access_patterns.py on hand-written analyses.

A kernel whose static instruction count is unchanged takes the new analysis, a changed one keeps the committed
one, a kernel only the new analysis has is added, and the provenance names each group; with --remeasured a
changed kernel matching the expression takes the new analysis; with --no-additions the kernel only the new
analysis has is left out; a file that is not an analysis is refused (exit
1, one line, no output file), and so is an expression that does not compile (exit 2).
usage: test_merge_access_patterns.py REPO
"""
import json
import os
import subprocess
import sys
import tempfile


def analysis(kernels, commit):
    return {"schema": "warpmodel.access-patterns/1", "provenance": {"commit": commit, "how": "test"},
            "kernels": {name: {"static_instructions": count, "access_patterns": {"tag": tag}}
                        for name, (count, tag) in kernels.items()}}


def main():
    script = os.path.join(os.path.abspath(sys.argv[1]), "scripts", "merge_access_patterns.py")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = {k: os.path.join(tmp, f"{k}.json") for k in ("committed", "new", "out", "bad")}
        with open(paths["committed"], "w") as f:
            json.dump(analysis({"same": (10, "old"), "changed": (20, "old")}, "aaa"), f)
        with open(paths["new"], "w") as f:
            json.dump(analysis({"same": (10, "new"), "changed": (21, "new"), "added": (30, "new")}, "bbb"), f)
        p = subprocess.run([sys.executable, script, paths["committed"], paths["new"], paths["out"]],
                           capture_output=True, text=True)
        if p.returncode != 0:
            failures.append(f"merge failed: {p.stderr.strip()}")
        else:
            out = json.load(open(paths["out"]))
            tags = {name: k["access_patterns"]["tag"] for name, k in out["kernels"].items()}
            if tags != {"same": "new", "changed": "old", "added": "new"}:
                failures.append(f"kernels: {tags}")
            prov = out["provenance"]
            if prov["kept"]["names"] != ["changed"] or prov["added"]["names"] != ["added"] or \
                    prov["refreshed"]["kernels"] != 1 or prov["added"]["commit"] != "bbb":
                failures.append(f"provenance: {prov}")
        no_additions_out = os.path.join(tmp, "out-no-additions.json")
        p = subprocess.run([sys.executable, script, paths["committed"], paths["new"], no_additions_out, "--no-additions"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            failures.append(f"--no-additions failed: {p.stderr.strip()}")
        else:
            out = json.load(open(no_additions_out))
            tags = {name: k["access_patterns"]["tag"] for name, k in out["kernels"].items()}
            if tags != {"same": "new", "changed": "old"} or out["provenance"]["added"]["kernels"] != 0 or \
                    "left out" not in out["provenance"]["how"]:
                failures.append(f"--no-additions: {tags}, {out['provenance']}")
        remeasured_out = os.path.join(tmp, "out-remeasured.json")
        p = subprocess.run([sys.executable, script, paths["committed"], paths["new"], remeasured_out, "--remeasured",
                            "^chan"], capture_output=True, text=True)
        if p.returncode != 0:
            failures.append(f"merge --remeasured failed: {p.stderr.strip()}")
        else:
            out = json.load(open(remeasured_out))
            tags = {name: k["access_patterns"]["tag"] for name, k in out["kernels"].items()}
            if tags != {"same": "new", "changed": "new", "added": "new"}:
                failures.append(f"--remeasured kernels: {tags}")
            prov = out["provenance"]
            if prov["replaced"]["names"] != ["changed"] or prov["kept"]["kernels"] != 0:
                failures.append(f"--remeasured provenance: {prov}")
        bad_regex_out = os.path.join(tmp, "out-bad-regex.json")
        p = subprocess.run([sys.executable, script, paths["committed"], paths["new"], bad_regex_out, "--remeasured",
                            "("], capture_output=True, text=True)
        if p.returncode != 2 or len(p.stderr.strip().splitlines()) != 1 or os.path.exists(bad_regex_out):
            failures.append(f"bad --remeasured: rc {p.returncode}, stderr {p.stderr!r}")
        with open(paths["bad"], "w") as f:
            json.dump({"kernels": {}}, f)  # no provenance: not an analysis
        out_bad = os.path.join(tmp, "out-bad.json")
        p = subprocess.run([sys.executable, script, paths["committed"], paths["bad"], out_bad],
                           capture_output=True, text=True)
        if p.returncode != 1 or len(p.stderr.strip().splitlines()) != 1 or os.path.exists(out_bad):
            failures.append(f"bad input: rc {p.returncode}, stderr {p.stderr!r}, output written {os.path.exists(out_bad)}")
    for f in failures:
        print("FAIL:", f)
    print("results.merge_access_patterns:", "failed" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
