#!/usr/bin/env python3
"""results.no_issue_numbers: no tracked file names an issue by its number.

The product says what a thing is (the step target, the repeatability criterion, the stencil targets),
not which tracker entry asked for it: code, comments, scripts, docs, the strings that generated tables
print and the committed results alike. Every file `git ls-files` lists is read as it is in the working
tree (binary files, those with a NUL byte, are skipped); a line matching PATTERN (case-insensitive:
the word, an optional plural, space, '-' or '_', an optional '#', then digits) fails, one line each
naming the file and line. Outside a git checkout the tree is walked instead (build*/ and dot folders
left out).
usage: test_no_issue_numbers.py REPO
"""
import os
import re
import subprocess
import sys

PATTERN = re.compile(r"issue[s]?[ _-]?#?\d+", re.IGNORECASE)


def tracked_files(repo):
    try:
        out = subprocess.run(["git", "-C", repo, "ls-files", "-z"], capture_output=True, check=True).stdout
        return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for root, dirs, names in os.walk(repo):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not d.startswith("build"))
            found += [os.path.relpath(os.path.join(root, n), repo) for n in sorted(names)]
        return found


def main():
    repo = os.path.abspath(sys.argv[1])
    failures, scanned = [], 0
    for rel in tracked_files(repo):
        path = os.path.join(repo, rel)
        if not os.path.isfile(path):  # deleted in the working tree, or a submodule
            continue
        with open(path, "rb") as f:
            data = f.read()
        if b"\0" in data:
            continue
        scanned += 1
        text = data.decode("utf-8", "replace")
        for number, line in enumerate(text.splitlines(), 1):
            for m in PATTERN.finditer(line):
                failures.append(f"{rel}:{number}: names an issue number ({m.group(0)!r}): "
                                "say what the thing is instead")
    if failures:
        print("\n".join(failures))
        print(f"no_issue_numbers: {len(failures)} line(s) in {scanned} text files")
        return 1
    print(f"no_issue_numbers: {scanned} text files, none names an issue number")
    return 0


if __name__ == "__main__":
    sys.exit(main())
