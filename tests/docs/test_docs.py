#!/usr/bin/env python3
"""Keeps the documentation true (ctest: docs.quick_start).

    test_docs.py REPO WARPMODEL_BIN

Checks, over README.md and docs/*.md:
  (a) every relative link ([text](path), ![alt](path)) resolves to an existing file or folder
      (anchors after '#' are ignored; links inside code are not links);
  (b) every command of a code block marked with a `<!-- runs-without-gpu -->` line right before its
      fence runs and exits 0: a leading `warpmodel` is replaced by WARPMODEL_BIN, and the commands run
      in a temporary copy of the repository, so whatever they write never lands in the tree;
  (c) README.md has at most 300 lines, and no page names issue numbers (the word issue and a number
      anywhere, "#" and a number outside code blocks, where "#0" is a launch's number in a program's output).
Standard library only. Exit 0 when every check passes, 1 with one line per failure otherwise.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

MAX_README_LINES = 300
MARKER_NO_GPU = "<!-- runs-without-gpu -->"
MARKER_GPU = "<!-- needs-gpu -->"
# About 20 s in all on a plain build; under ASan + UBSan (scripts/test.sh) `validate --from` alone
# takes about two minutes, hence the generous limit per command.
COMMAND_TIMEOUT_S = 600
# Left out of the temporary copy: version control and build trees (the binary is passed in).
COPY_IGNORE = shutil.ignore_patterns(".git", "build", "build-*", "__pycache__", "*.pyc")

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
ISSUE_WORD = re.compile(r"\bissue\s+#?\d+|\bissues\s+#\d+", re.IGNORECASE)
ISSUE_HASH = re.compile(r"(?<![\w&/])#\d+\b")


def pages(repo):
    found = [os.path.join(repo, "README.md")]
    docs = os.path.join(repo, "docs")
    if os.path.isdir(docs):
        found += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    return [p for p in found if os.path.isfile(p)]


def split_blocks(lines):
    """Yields (kind, start_line, lines, marker): kind 'text' or 'code'; marker is the HTML comment on the
    last non-blank line before a code fence, if any."""
    i, n = 0, len(lines)
    text_start, text = 0, []
    while i < n:
        m = FENCE.match(lines[i])
        if not m:
            text.append(lines[i])
            i += 1
            continue
        if text:
            yield ("text", text_start, text, None)
        marker = None
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0 and lines[j].strip() in (MARKER_NO_GPU, MARKER_GPU):
            marker = lines[j].strip()
        fence = m.group(2)
        body, k = [], i + 1
        while k < n and not (lines[k].strip().startswith(fence[0] * len(fence)) and
                             set(lines[k].strip()) == {fence[0]}):
            body.append(lines[k])
            k += 1
        yield ("code", i + 1, body, marker)
        i = k + 1
        text_start, text = i, []
    if text:
        yield ("text", text_start, text, None)


def check_links(path, lines, repo, failures):
    base = os.path.dirname(path)
    rel = os.path.relpath(path, repo)
    for kind, start, block, _ in split_blocks(lines):
        if kind != "text":
            continue
        for offset, line in enumerate(block):
            for target in LINK.findall(INLINE_CODE.sub("", line)):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("#"):
                    continue  # http:, https:, mailto:, or an anchor of the same page
                file_part = target.split("#", 1)[0].split("?", 1)[0]
                if not file_part:
                    continue
                resolved = os.path.normpath(os.path.join(base, file_part))
                if not os.path.exists(resolved):
                    failures.append(f"{rel}:{start + offset + 1}: link to '{target}': no such file")


def check_issue_numbers(path, lines, repo, failures):
    rel = os.path.relpath(path, repo)
    for kind, start, block, _ in split_blocks(lines):
        for offset, line in enumerate(block):
            where = f"{rel}:{start + offset + 1}"
            m = ISSUE_WORD.search(line)
            if m:
                failures.append(f"{where}: names an issue number ('{m.group(0)}')")
            if kind == "text":
                m = ISSUE_HASH.search(INLINE_CODE.sub("", line))
                if m:
                    failures.append(f"{where}: names an issue number ('{m.group(0)}')")


def commands_of(block):
    """The commands of a shell block: comments and blank lines dropped, backslash continuations joined."""
    commands, current = [], ""
    for raw in block:
        line = raw.rstrip()
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        current += line
        commands.append(current.strip())
        current = ""
    if current.strip():
        commands.append(current.strip())
    return commands


def with_binary(command, binary):
    return re.sub(r"^warpmodel(?=\s|$)", lambda _: shlex.quote(binary), command)


def run_marked_commands(repo, binary, failures):
    marked = []
    for path in pages(repo):
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        for kind, start, block, marker in split_blocks(lines):
            if kind == "code" and marker == MARKER_NO_GPU:
                for command in commands_of(block):
                    marked.append((os.path.relpath(path, repo), start, command))
    if not marked:
        failures.append(f"README.md: no code block is marked {MARKER_NO_GPU}")
        return
    work = tempfile.mkdtemp(prefix="warpmodel-docs-")
    try:
        copy = os.path.join(work, "repo")
        shutil.copytree(repo, copy, ignore=COPY_IGNORE, symlinks=True)
        for rel, line, command in marked:
            actual = with_binary(command, binary)
            began = time.monotonic()
            try:
                r = subprocess.run(["bash", "-c", actual], cwd=copy, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, timeout=COMMAND_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                failures.append(f"{rel}:{line}: `{command}` ran past {COMMAND_TIMEOUT_S} s")
                continue
            seconds = time.monotonic() - began
            if r.returncode != 0:
                err = r.stderr.decode(errors="replace").strip().splitlines()
                failures.append(f"{rel}:{line}: `{command}` exited {r.returncode}"
                                + (f": {err[-1]}" if err else ""))
            else:
                print(f"ok ({seconds:.1f} s): {command}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv):
    if len(argv) != 3:
        print("usage: test_docs.py REPO WARPMODEL_BIN", file=sys.stderr)
        return 2
    repo, binary = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    failures = []
    readme = os.path.join(repo, "README.md")
    if not os.path.isfile(readme):
        print(f"no README.md in {repo}", file=sys.stderr)
        return 1
    if not os.access(binary, os.X_OK):
        print(f"WARPMODEL_BIN {binary} is not an executable", file=sys.stderr)
        return 1
    for path in pages(repo):
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        check_links(path, lines, repo, failures)
        check_issue_numbers(path, lines, repo, failures)
    with open(readme, encoding="utf-8") as f:
        count = len(f.read().splitlines())
    if count > MAX_README_LINES:
        failures.append(f"README.md: {count} lines, at most {MAX_README_LINES}")
    run_marked_commands(repo, binary, failures)
    for failure in failures:
        print(failure)
    print(f"{len(pages(repo))} pages checked; {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
