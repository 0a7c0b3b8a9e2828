#!/usr/bin/env python3
"""The measurements of the external validation set in two committed files: results/<gpu>/external/
profiles.json.xz (schema warpmodel.external-profiles/1) and, beside it, cubins.json.xz
(warpmodel.external-cubins/1). This script is their only writer; `warpmodel validate --from
results/<gpu>` reads them and writes the tables (docs/validation.md, "External validation set").

  external_bundle.py --work OUT_DIR/.work --list scripts/external_suite.list --out OUT_DIR/profiles.json.xz
                     [--logs OUT_DIR/.logs] [--run RUN.json ...]
                     [--rebuilt SRC_DIR --check-device DEVICE.json [--warpmodel BIN]]

Per application of the list, one entry of profiles.json.xz: its list line (suite, half, folder, build, run,
profile_options), its status.txt (build and run exit codes, seconds, reasons, run date), the compiler lines
of its build log (OUT_DIR/.logs/NAME.build.log), its profile.json whole (counters, durations, the profile's
own provenance) and the names and sizes of the cubins of its profile.cubins folder that hold a launched
kernel; those cubins themselves (the SASS predict-app reads), base64, in cubins.json.xz (kept apart: they
are most of the bytes). An application with a work folder gets a fresh entry; one without, or one the
work folder only built, keeps its entry of the existing files (a run split over several calls, or over
several machines); --merge BUNDLE fills the applications still without a run from another copy of the
bundle; one in none of them is "not run". The run records (--run, repeatable: scripts/external_suite.sh's OUT_DIR/.logs/run-DATE.json) join
the file's runs; a run no application's status dates any more is dropped. An application that ran and
whose profile.json is missing is kept with "profile": null and why.

--rebuilt SRC_DIR: where a profile's cubins folder is missing, the cubins come from the application's
binary rebuilt in SRC_DIR/<folder> (the run line's program) with `cuobjdump -xelf all`; with
--check-device, `warpmodel predict-app` on them must reproduce every prediction of the work folder's
predict.csv (the run's own, with that device profile, so --warpmodel must predict as the run's program
did: the same model), else nothing is written. The entry says so. An existing file of the first layout
(each entry's cubins inside it) is read as well and written in this one.

Bad input: one line on stderr naming the file and what was expected, exit 2, nothing written.
"""
import argparse
import base64
import csv
import io
import json
import lzma
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

SCHEMA = "warpmodel.external-profiles/1"
CUBINS_SCHEMA = "warpmodel.external-cubins/1"
HALVES = ("development", "held-out")
REPOSITORIES = {"hecbench": "https://github.com/zjin-lcf/HeCBench", "rodinia": "https://github.com/yuhc/gpu-rodinia"}
LIST_COLUMNS = ["name", "suite", "folder", "build", "run", "half", "profile_options"]
# Compiler lines of a build log (make echoes them): the build line's own commands.
COMPILER = re.compile(r"^\s*(\S*/)?(nvcc|gcc|g\+\+|cc|c\+\+|clang\+\+?)\s")


class InputError(Exception):
    pass


def read_text(path):
    try:
        if path.endswith(".xz"):
            with lzma.open(path, "rt", encoding="utf-8", newline="") as f:
                return f.read()
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror or e})")
    except (UnicodeDecodeError, lzma.LZMAError) as e:
        raise InputError(f"{path}: not UTF-8 text or not xz ({e})")


def read_json(path, what):
    try:
        doc = json.loads(read_text(path))
    except ValueError as e:
        raise InputError(f"{path}: not JSON ({e})")
    if not isinstance(doc, dict):
        raise InputError(f"{path}: expected {what} (a JSON object)")
    return doc


def write_xz(path, text):
    """Atomically, compressed as `xz -9e` does (the same bytes for the same text)."""
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))
    os.replace(tmp, path)


def read_list(path):
    """(applications in order, [{suite, repository, commit}]) from the TSV list and its header comment."""
    apps, commits, header = [], {}, None
    for n, line in enumerate(read_text(path).splitlines(), start=1):
        if line.startswith("#"):
            words = line[1:].split()
            if len(words) >= 4 and words[0] in REPOSITORIES and words[2] == "commit":
                commits[words[0]] = words[3]
            continue
        if not line.strip():
            continue
        fields = line.split("\t")
        if header is None:
            if fields != LIST_COLUMNS:
                raise InputError(f"{path}:{n}: header {fields}, expected {LIST_COLUMNS}")
            header = fields
            continue
        if len(fields) != len(header):
            raise InputError(f"{path}:{n}: {len(fields)} fields, expected {len(header)}")
        app = dict(zip(header, fields))
        if app["suite"] not in REPOSITORIES:
            raise InputError(f"{path}:{n}: suite {app['suite']!r}, expected one of {', '.join(REPOSITORIES)}")
        if app["half"] not in HALVES:
            raise InputError(f"{path}:{n}: half {app['half']!r}, expected development or held-out")
        if any(a["name"] == app["name"] for a in apps):
            raise InputError(f"{path}:{n}: {app['name']} listed twice")
        apps.append(app)
    if header is None or not apps:
        raise InputError(f"{path}: no applications")
    suites = [{"suite": s, "repository": REPOSITORIES[s], "commit": commits.get(s)}
              for s in sorted({a["suite"] for a in apps})]
    return apps, suites


def read_status(path):
    status = {}
    for line in read_text(path).splitlines():
        if "\t" in line:
            key, value = line.split("\t", 1)
            status[key] = value
    return status


def compiler_lines(log):
    if not os.path.exists(log):
        return []
    return [line.strip() for line in read_text(log).splitlines() if COMPILER.match(line)]


def launched_kernels(profile, where):
    launches = profile.get("launches")
    if not isinstance(launches, list):
        raise InputError(f"{where}: no \"launches\" list (expected a warpmodel.profile/1 document)")
    names = set()
    for n, launch in enumerate(launches):
        if not isinstance(launch, dict) or not isinstance(launch.get("kernel"), str):
            raise InputError(f"{where}: launches[{n}]: no \"kernel\" name")
        names.add(launch["kernel"])
    return names


def kept_cubins(folder, kernels):
    """{file name: base64} of the cubins in `folder` that hold a launched kernel's symbol."""
    out = {}
    symbols = [k.encode() + b"\0" for k in kernels]
    for name in sorted(os.listdir(folder), key=lambda n: (len(n), n)):
        if not name.endswith(".cubin"):
            continue
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        if any(s in data for s in symbols):
            out[name] = base64.b64encode(data).decode("ascii")
    return out


def find_tool(name, variable):
    if os.environ.get(variable):
        return os.environ[variable]
    found = shutil.which(name) or (f"/usr/local/cuda/bin/{name}" if os.path.exists(f"/usr/local/cuda/bin/{name}") else None)
    if found:
        return found
    try:  # the PyPI wheel scripts/setup.sh installs
        import nvidia.cu13  # noqa: F401
        path = os.path.join(list(nvidia.cu13.__path__)[0], "bin", name)
        if os.path.exists(path):
            return path
    except ImportError:
        pass
    raise InputError(f"{name} not found (PATH, /usr/local/cuda/bin, the nvidia-cuda-cuobjdump wheel; ${variable})")


def nvcc_version():
    try:
        out = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    except OSError:
        return None
    m = re.search(r"release [0-9.]+, V([0-9.]+)", out)
    return m.group(1) if m else None


def predicted_column(text, where):
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    if rows and "predicted_us" not in rows[0]:
        raise InputError(f"{where}: no predicted_us column (expected predict-app --format csv)")
    return [r["predicted_us"] for r in rows]


def rebuilt_cubins(app, profile_path, kernels, args, work_folder):
    """The cubins of the application's rebuilt binary, checked against the run's own predictions."""
    program = shlex.split(app["run"])[0]
    binary = os.path.join(args.rebuilt, app["folder"], program)
    if not os.path.isfile(binary):
        raise InputError(f"{binary}: missing (--rebuilt: build {app['name']} in its folder first: {app['build']})")
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run([find_tool("cuobjdump", "WARPMODEL_CUOBJDUMP"), "-xelf", "all", os.path.abspath(binary)],
                             cwd=tmp, capture_output=True, text=True)
        if run.returncode != 0:
            raise InputError(f"{binary}: cuobjdump -xelf all failed: {run.stderr.strip()[:200]}")
        cubins = kept_cubins(tmp, kernels)
    if not cubins:
        raise InputError(f"{binary}: none of its cubins holds a kernel of {profile_path}")
    check = ""
    if args.check_device:
        recorded = os.path.join(work_folder, "predict.csv")
        if not os.path.exists(recorded):
            raise InputError(f"{recorded}: missing (--check-device compares predict-app on the rebuilt cubins with it)")
        run = subprocess.run([args.warpmodel, "predict-app", "--profile", profile_path, "--device", args.check_device,
                              "--binary", binary, "--format", "csv"], capture_output=True, text=True)
        if run.returncode != 0:
            raise InputError(f"{app['name']}: predict-app on the rebuilt binary failed: {run.stderr.strip()[:200]}")
        ours, theirs = predicted_column(run.stdout, "predict-app"), predicted_column(read_text(recorded), recorded)
        if ours != theirs:
            differ = sum(1 for a, b in zip(ours, theirs) if a != b) + abs(len(ours) - len(theirs))
            raise InputError(f"{app['name']}: the rebuilt binary's SASS is not the run's: {differ} of {len(theirs)} "
                             f"predictions of {recorded} differ")
        check = (f"; `warpmodel predict-app` on them with {os.path.basename(args.check_device)} reproduces all "
                 f"{len(theirs)} predictions the run wrote (its predict.csv)")
    version = nvcc_version()
    sass = (f"rebuilt: the profile's cubins were not kept; `{app['build']}` in {app['folder']} at the suite's listed "
            f"commit{' with nvcc ' + version if version else ''}, cubins from `cuobjdump -xelf all {program}`" + check)
    return cubins, sass


def fresh_entry(app, work, logs, args):
    folder = os.path.join(work, app["name"])
    status = read_status(os.path.join(folder, "status.txt"))
    entry = {"app": app["name"], "status": status,
             "build_commands": compiler_lines(os.path.join(logs, app["name"] + ".build.log")) if logs else [],
             "profile": None, "cubins": {}, "sass": None}
    profile_path = os.path.join(folder, "profile.json")
    if os.path.exists(profile_path):
        profile = read_json(profile_path, "a warpmodel.profile/1 document")
        kernels = launched_kernels(profile, profile_path)
        cubin_folder = os.path.join(folder, str(profile.get("cubins", "profile.cubins")))
        entry["profile"] = profile
        if os.path.isdir(cubin_folder):
            entry["cubins"] = kept_cubins(cubin_folder, kernels)
            entry["sass"] = "the cubins `warpmodel profile` kept (those holding a launched kernel)"
        elif args.rebuilt:
            entry["cubins"], entry["sass"] = rebuilt_cubins(app, profile_path, kernels, args, folder)
        else:
            entry["sass"] = None
            entry["profile_missing"] = f"{cubin_folder}: no cubins kept (give --rebuilt SRC_DIR)"
    elif status.get("run_exit") not in (None, "124", "137") and os.path.exists(os.path.join(folder, "predict.csv")):
        entry["profile_missing"] = ("its profile.json and cubins were not kept (only predict-app's table came back "
                                    "from the GPU machine): run it again to score it")
    return entry


def merge_runs(runs, records):
    for record in records:
        runs = [r for r in runs if r.get("date") != record.get("date")] + [record]
    return runs


def ran(entry):
    """Whether an entry records a run of its application (whatever came of it), not a build alone."""
    return bool(entry) and entry.get("status", {}).get("run_exit") not in (None, "")


def read_bundle(path):
    """A bundle's entries by application (each with its cubins' bytes) and its run records."""
    doc = read_json(path, f"a {SCHEMA} document")
    if doc.get("schema") != SCHEMA or not isinstance(doc.get("applications"), list):
        raise InputError(f"{path}: expected a {SCHEMA} document with \"applications\"")
    kept = {}
    if os.path.exists(cubins_path(path)):
        cubin_doc = read_json(cubins_path(path), f"a {CUBINS_SCHEMA} document")
        if cubin_doc.get("schema") != CUBINS_SCHEMA or not isinstance(cubin_doc.get("applications"), dict):
            raise InputError(f"{cubins_path(path)}: expected a {CUBINS_SCHEMA} document with \"applications\"")
        kept = cubin_doc["applications"]
    entries = {}
    for e in doc["applications"]:
        if not isinstance(e, dict):
            continue
        if isinstance(e.get("cubins"), dict):  # the first layout: the cubins inside the entry
            entries[e.get("app")] = dict(e)
            continue
        files = {c.get("file") for c in e.get("cubins", []) if isinstance(c, dict)}
        entries[e.get("app")] = dict(e, cubins={f: b for f, b in kept.get(e.get("app"), {}).items() if f in files})
    return entries, [r for r in doc.get("runs", []) if isinstance(r, dict)]


def cubins_path(out):
    return os.path.join(os.path.dirname(out), "cubins.json.xz")


def provenance_of(runs, suites, apps):
    """The record provenance_index.py files under profiles.json.xz: the last run's GPU, driver, CUDA, every
    run's card (UUID), commit and command, both suites, and the build lines (with their applications)."""
    last = runs[-1] if runs else {}
    builds = {}
    for a in apps:
        builds.setdefault(a["build"], []).append(a["name"])
    # One folder's applications may have been measured on several cards of the model (one per call):
    # every card is named, in the order of the calls; launches.csv names each launch's.
    uuids = list(dict.fromkeys(r.get("gpu_uuid") for r in runs if r.get("gpu_uuid")))
    return {"gpu": last.get("gpu"), "gpu_uuid": last.get("gpu_uuid"), "gpu_uuids": uuids, "driver": last.get("driver"),
            "cuda": last.get("cuda"), "sm_clock_mhz": last.get("sm_clock_mhz"),
            "sm_clock_source": last.get("sm_clock_source"), "date": last.get("date"), "commit": last.get("commit"),
            "command": "; ".join(r.get("command", "") for r in runs if r.get("command")) or None,
            "nvcc": last.get("nvcc"), "suites": suites,
            "build_lines": [{"build": b, "applications": names} for b, names in builds.items()]}


def bundle(args):
    apps, suites = read_list(args.list)
    if not os.path.isdir(args.work):
        raise InputError(f"{args.work}: not a folder (--work: one folder per application)")
    if args.check_device and not args.rebuilt:
        raise InputError("--check-device checks cubins from --rebuilt SRC_DIR; give --rebuilt too")
    earlier, runs = read_bundle(args.out) if os.path.exists(args.out) else ({}, [])
    merged = [read_bundle(m) for m in args.merge or []]
    for _, other_runs in merged:
        runs = merge_runs(runs, other_runs)
    runs = merge_runs(runs, [read_json(r, "the run record") for r in args.run or []])
    runs.sort(key=lambda r: str(r.get("date") or ""))
    entries, fresh = [], 0
    for app in apps:
        entry = None
        if os.path.exists(os.path.join(args.work, app["name"], "status.txt")):
            entry = fresh_entry(app, args.work, args.logs, args)
            fresh += 1
        # A call that only built an application (or stopped before it) does not erase an earlier run of it.
        for candidates, _ in [(earlier, None)] + merged:
            if not ran(entry) and ran(candidates.get(app["name"])):
                entry = dict(candidates[app["name"]])
        if entry is None:
            entry = dict(earlier.get(app["name"]) or
                         {"app": app["name"], "status": {}, "build_commands": [], "profile": None, "cubins": {}, "sass": None})
        # The list is what says where an application is and which half it is in.
        listed = {k: app[k] for k in ("suite", "half", "folder", "build", "run", "profile_options")}
        entries.append(dict({"app": app["name"]}, **listed, **{k: v for k, v in entry.items() if k not in listed}))
    # The runs some application's status still dates (a run whose applications were all run again since
    # is no one's provenance any more).
    dates = {e.get("status", {}).get("run_date") for e in entries}
    runs = [r for r in runs if r.get("date") in dates]
    provenance = provenance_of(runs, suites, apps)
    cubins = {e["app"]: e["cubins"] for e in entries if e.get("cubins")}
    for e in entries:  # the profiles' file names each cubin and its size; the bytes are in cubins.json.xz
        e["cubins"] = [{"file": f, "bytes": len(base64.b64decode(b))} for f, b in sorted(e.get("cubins", {}).items())]
    doc = {"schema": SCHEMA,
           "note": "the external validation set's measurements: per application its list line, status, build "
                   "commands, warpmodel profile's profile.json and the cubins holding its launched kernels (their "
                   "bytes in cubins.json.xz beside it); written by scripts/external_bundle.py, read by "
                   "`warpmodel validate --from`",
           "list": os.path.basename(args.list), "suites": suites, "runs": runs,
           "provenance": provenance, "applications": entries}
    cubin_doc = {"schema": CUBINS_SCHEMA,
                 "note": "the cubins holding each application's launched kernels, base64, as profiles.json.xz beside "
                         "it names them; written by scripts/external_bundle.py",
                 "provenance": provenance, "applications": cubins}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    text = json.dumps(doc, indent=None, separators=(",", ":"), sort_keys=False) + "\n"
    cubin_text = json.dumps(cubin_doc, indent=None, separators=(",", ":"), sort_keys=False) + "\n"
    write_xz(cubins_path(args.out), cubin_text)
    write_xz(args.out, text)
    profiled = sum(1 for e in entries if e.get("profile"))
    print(f"external_bundle: {len(entries)} applications ({fresh} from {args.work}, {profiled} with a profile) -> "
          f"{args.out} ({os.path.getsize(args.out)} bytes), {cubins_path(args.out)} "
          f"({os.path.getsize(cubins_path(args.out))} bytes)")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", required=True, help="OUT_DIR/.work: one folder per application")
    ap.add_argument("--list", required=True, help="scripts/external_suite.list")
    ap.add_argument("--out", required=True, help="the bundle: OUT_DIR/profiles.json.xz (merged into when it exists)")
    ap.add_argument("--logs", help="OUT_DIR/.logs: NAME.build.log gives each application's compiler lines")
    ap.add_argument("--run", action="append",
                    help="a run record (scripts/external_suite.sh's OUT_DIR/.logs/run-DATE.json); repeatable")
    ap.add_argument("--merge", action="append",
                    help="another bundle (profiles.json.xz, its cubins.json.xz beside it), e.g. another call's or "
                         "machine's copy: its runs fill the applications that have none here; repeatable")
    ap.add_argument("--rebuilt", help="SRC_DIR with the applications rebuilt: cubins where a profile kept none")
    ap.add_argument("--check-device", help="with --rebuilt: the device profile the run predicted with")
    ap.add_argument("--warpmodel", default=os.environ.get("WARPMODEL_BIN", "build/cli/warpmodel"),
                    help="the program for --check-device (default $WARPMODEL_BIN or build/cli/warpmodel)")
    args = ap.parse_args(argv[1:])
    if not args.out.endswith(".json.xz"):
        raise InputError(f"--out {args.out}: expected a .json.xz name (profiles.json.xz)")
    bundle(args)


if __name__ == "__main__":
    try:
        main(sys.argv)
    except InputError as e:
        print(f"external_bundle.py: {e}", file=sys.stderr)
        sys.exit(2)
