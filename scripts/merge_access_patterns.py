#!/usr/bin/env python3
"""Refresh a committed access-patterns.json with a newer analysis of the same kernels.

The committed file is the address analysis of the binary the validation sweep measured. When the
analysis improves but the program's kernels moved on (the measured binary is not at hand), the
kernels whose SASS is unchanged (same static instruction count) take the new analysis and the
others keep the committed one, so `validate` still matches every launch to its own code. Kernels
the committed file lacks (added to the program since, and measured by a sweep that did not bring its
own analysis back) are added from the new one; `validate` attaches them only to launches whose
static instruction count they match. Kernels whose launches were re-measured with the new binary
(--remeasured REGEX, matched against the mangled name) take the new analysis even where their SASS
changed: the committed analysis describes code that no longer ran. With --no-additions the kernels
the committed file lacks are left out (a refresh of the analysis alone: no sweep measured them).

usage: merge_access_patterns.py COMMITTED.json NEW.json OUT.json [--remeasured REGEX] [--no-additions]
"""
import json
import lzma
import os
import re
import sys


def main() -> int:
    args = sys.argv[1:]
    no_additions = "--no-additions" in args
    args = [a for a in args if a != "--no-additions"]
    remeasured = None
    if len(args) == 5 and args[3] == "--remeasured":
        try:
            remeasured = re.compile(args[4])
        except re.error as e:
            print(f"merge_access_patterns: --remeasured {args[4]!r} is not a regular expression ({e})", file=sys.stderr)
            return 2
        args = args[:3]
    if len(args) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    committed_path, new_path, out_path = args
    def load(path):  # an .xz file (as results/ stores it) decompressed
        with (lzma.open(path, "rt", encoding="utf-8") if path.endswith(".xz") else open(path, encoding="utf-8")) as f:
            return json.load(f)
    try:
        committed = load(committed_path)
        new = load(new_path)
    except (OSError, json.JSONDecodeError, lzma.LZMAError) as e:
        print(f"merge_access_patterns: {e}", file=sys.stderr)
        return 1
    for path, doc in ((committed_path, committed), (new_path, new)):
        missing = [key for key in ("kernels", "provenance") if key not in doc]
        if missing:
            print(f"merge_access_patterns: {path} has no {', '.join(missing)}: both files must be "
                  "`warpmodel sass-analyze --addresses --format json` output", file=sys.stderr)
            return 1
    kernels, refreshed, replaced, kept = {}, [], [], []
    for name, old in committed["kernels"].items():
        fresh = new["kernels"].get(name)
        if fresh is not None and fresh.get("static_instructions") == old.get("static_instructions"):
            kernels[name] = fresh
            refreshed.append(name)
        elif fresh is not None and remeasured is not None and remeasured.search(name):
            kernels[name] = fresh
            replaced.append(name)
        else:
            kernels[name] = old
            kept.append(name)
    added = [] if no_additions else sorted(name for name in new["kernels"] if name not in committed["kernels"])
    for name in added:
        kernels[name] = new["kernels"][name]
    out = dict(committed)
    out["kernels"] = kernels
    out["provenance"] = {
        "how": "the kernels with unchanged SASS (static instruction count) re-analysed; the others kept; "
               + ("the kernels the committed file lacked left out" if no_additions
                  else "the kernels the committed file lacked added"),
        "refreshed": {"kernels": len(refreshed), **new["provenance"]},
        "added": {"kernels": len(added), "names": added, **new["provenance"]},
        "kept": {"kernels": len(kept), "names": kept, **committed["provenance"]},
        "command": "scripts/merge_access_patterns.py " + " ".join(sys.argv[1:]),
    }
    if remeasured is not None:
        out["provenance"]["how"] += "; the re-measured kernels (--remeasured) re-analysed although their SASS changed"
        out["provenance"]["replaced"] = {"kernels": len(replaced), "names": replaced, **new["provenance"]}
    text = json.dumps(out, indent=1, sort_keys=True) + "\n"
    with open(out_path + ".tmp", "wb") as f:
        f.write(lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME) if out_path.endswith(".xz")
                else text.encode("utf-8"))
    os.replace(out_path + ".tmp", out_path)
    print(f"merge_access_patterns: {len(refreshed)} kernels re-analysed, {len(replaced)} replaced (re-measured), "
          f"{len(kept)} kept, {len(added)} added -> {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
