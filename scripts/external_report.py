#!/usr/bin/env python3
"""The tables of the external validation set (scripts/external_suite.sh; docs/validation.md, "External
validation set"). The only writer of results/<gpu>/external/launches.csv, apps.csv and summary.md.

  external_report.py --work OUT_DIR/.work --list scripts/external_suite.list --out OUT_DIR [--run RUN.json]
        from the work folders (per application: status.txt, predict.csv of `predict-app --format csv`,
        profile.json where it was kept): launches.csv, apps.csv and summary.md. An application listed
        with no work folder keeps its rows of an earlier OUT_DIR/launches.csv and apps.csv (a run split
        over several calls).
  external_report.py --from results/<gpu>/external [--out DIR]
        summary.md again from the committed launches.csv and apps.csv alone (no GPU); the same bytes.

A distinct launch is one kernel (mangled name) at one grid and block shape within an application; its
repeated launches are grouped: measured and predicted times are their medians, the error is
(predicted - measured) / measured of the medians. Statistics are over distinct launches, apart for
those measured at >= 20 us and below. Bad input: one line on stderr, exit 2, nothing written.

The provenance columns of an application's launches come from, in this order: its predict.csv's own
columns (gpu, driver, cuda, sm_clock_mhz, measured_date, measured_commit, measurement_command) where
it has them; else its profile.json's "provenance" (gpu, driver, cuda, sm_clock_mhz, date, commit,
command); else the run record given with --run (the JSON scripts/external_suite.sh writes: gpu,
driver, cuda, commit), with the date of the application's run (status.txt's run_date) and the
`warpmodel profile` command its list line gives. The SM clock is "not recorded" where the profile read
none (NVML unavailable) or only the run record is there (nvidia-smi reads the clock of the GPU at rest,
not of the launches). An application with launches and none of these sources is an error naming it.
An application that was built and never run (no run_exit in status.txt) is "not run", with the run
record's "not_run_reason" where it gives one (e.g. the calls stopped before its turn), else "built
only".
"""
import argparse
import csv
import io
import json
import os
import re
import shlex
import statistics
import sys

THRESHOLD_US = 20.0
HALVES = ("development", "held-out")
PROVENANCE = ["gpu", "driver", "cuda", "sm_clock_mhz", "measured_date", "measured_commit", "measurement_command"]
LAUNCH_COLUMNS = ["app", "suite", "half", "kernel", "grid", "block", "launches", "measured_us", "predicted_us",
                  "error_pct", "bound", "note"] + PROVENANCE
APP_COLUMNS = ["app", "suite", "half", "status", "reason", "build_exit", "build_seconds", "run_exit", "run_seconds",
               "profiled_launches", "distinct_launches", "distinct_launches_20us", "folder", "build", "run",
               "profile_options", "repository", "repository_commit"]
REPOSITORIES = {"hecbench": "https://github.com/zjin-lcf/HeCBench", "rodinia": "https://github.com/yuhc/gpu-rodinia"}
RAN = ("ok", "app error")  # statuses whose launches were profiled and predicted
PREDICT_COLUMNS = ["kernel", "mangled", "launches", "grid", "block", "measured_us", "predicted_us", "bound", "note"]
NOT_RECORDED = "not recorded"


class InputError(Exception):
    pass


def read_text(path):
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})")


def read_csv(path, required):
    rows = list(csv.DictReader(io.StringIO(read_text(path), newline="")))
    header = rows[0].keys() if rows else next(csv.reader(io.StringIO(read_text(path))), [])
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(f"{path}: no column {', '.join(missing)}")
    for n, r in enumerate(rows, start=2):
        if None in r or any(v is None for v in r.values()):
            raise InputError(f"{path}:{n}: expected {len(header)} fields")
    return rows


def write_text(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.replace(tmp, path)


def csv_text(columns, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([r.get(c, "") for c in columns])
    return buf.getvalue()


def number(text, where):
    try:
        v = float(text)
    except (TypeError, ValueError):
        raise InputError(f"{where}: {text!r} is not a number")
    if v != v or v in (float("inf"), float("-inf")):
        raise InputError(f"{where}: {text!r} is not finite")
    return v


def fmt(v, digits):
    return "" if v is None else f"{v:.{digits}f}"


# --- the list ---------------------------------------------------------------------------------------

def read_list(path):
    """(applications in order, {suite: commit}) from the TSV list and its header comment."""
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
            header = fields
            need = ["name", "suite", "folder", "build", "run", "half", "profile_options"]
            if header != need:
                raise InputError(f"{path}:{n}: header {header}, expected {need}")
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
    return apps, commits


# --- the work folders -> launches.csv, apps.csv -----------------------------------------------------

def read_status(path):
    status = {}
    for line in read_text(path).splitlines():
        if "\t" in line:
            key, value = line.split("\t", 1)
            status[key] = value
    return status


def app_status(status, launches, run_record=None):
    if not status:
        return "not run", ""
    if status.get("build_exit") != "0":
        return "build failed", status.get("build_reason", "")
    if "run_exit" not in status:
        return "not run", (run_record or {}).get("not_run_reason") or "built only"
    run, predict = status.get("run_exit"), status.get("predict_exit")
    if run in ("124", "137"):
        return "timeout", status.get("run_reason", "")
    if predict not in (None, "-1", "0"):
        return "predict failed", f"predict-app exit {predict}"
    if not launches:
        return "profile failed", status.get("run_reason", "") or "no launch profiled"
    if run != "0":
        return "app error", status.get("run_reason", "")
    return "ok", ""


def relative_command(command, work_prefix):
    """A measurement command with the work folder's absolute path (here or on the GPU machine) as .work/."""
    if work_prefix:
        command = command.replace(work_prefix, ".work/")
    return re.sub(r"(?<![^\s'\"=])/[^\s'\"]*/\.work/", ".work/", command)


def clock_text(*readings):
    """The mean of the SM clock readings above zero (NVML's), or "not recorded"."""
    values = []
    for r in readings:
        try:
            v = float(r)
        except (TypeError, ValueError):
            continue
        if v > 0 and v == v and v != float("inf"):
            values.append(v)
    return f"{sum(values) / len(values):.1f}" if values else NOT_RECORDED


def profile_provenance(path):
    """The provenance columns from a kept profile.json's "provenance", or None where it has none."""
    if not os.path.exists(path):
        return None
    try:
        doc = json.loads(read_text(path))
    except ValueError as e:
        raise InputError(f"{path}: not JSON ({e})")
    if not isinstance(doc, dict):
        raise InputError(f"{path}: not a warpmodel profile")
    if isinstance(doc.get("profiles"), list) and doc["profiles"] and isinstance(doc["profiles"][0], dict):
        doc = doc["profiles"][0]
    p = doc.get("provenance")
    if not isinstance(p, dict) or not all(p.get(k) for k in ("gpu", "driver", "cuda", "date", "commit", "command")):
        return None
    cuda = str(p["cuda"])
    if cuda.isdigit() and len(cuda) >= 4:  # the runtime's number, 13000 -> 13.0
        cuda = f"{int(cuda) // 1000}.{int(cuda) % 1000 // 10}"
    return {"gpu": str(p["gpu"]), "driver": str(p["driver"]), "cuda": cuda,
            "sm_clock_mhz": clock_text(p.get("sm_clock_mhz"), p.get("sm_clock_mhz_after")),
            "measured_date": str(p["date"]), "measured_commit": str(p["commit"]), "measurement_command": str(p["command"])}


def profile_command(app):
    """The `warpmodel profile` command scripts/external_suite.sh runs for an application of the list."""
    options = "" if app["profile_options"] in ("", "-") else " " + app["profile_options"]
    return f"warpmodel profile -o .work/{app['name']}/profile{options} -- bash -c {shlex.quote(app['run'])}"


def read_run_record(path):
    try:
        doc = json.loads(read_text(path))
    except ValueError as e:
        raise InputError(f"{path}: not JSON ({e})")
    if not isinstance(doc, dict):
        raise InputError(f"{path}: expected a JSON object (the run record)")
    return doc


def run_provenance(app, status, run_record, run_path):
    """The provenance columns from the run record, with the application's run date and list line."""
    missing = [k for k in ("gpu", "driver", "cuda", "commit") if not run_record.get(k)]
    if missing:
        raise InputError(f"{run_path}: no {', '.join(missing)} for {app['name']}'s launches")
    if not status.get("run_date"):
        raise InputError(f"{app['name']}: status.txt has no run_date for the provenance of its launches")
    return {"gpu": str(run_record["gpu"]), "driver": str(run_record["driver"]), "cuda": str(run_record["cuda"]),
            "sm_clock_mhz": NOT_RECORDED, "measured_date": status["run_date"],
            "measured_commit": str(run_record["commit"]), "measurement_command": profile_command(app)}


def group_launches(app, rows, where, work_prefix, provenance=None):
    """Distinct launches (mangled kernel, grid, block) of one application's predict.csv rows, in the
    order of their first launch; the provenance columns from the rows themselves, else `provenance`."""
    groups = {}
    for n, r in enumerate(rows, start=2):
        key = (r["mangled"] or r["kernel"], r["grid"], r["block"])
        groups.setdefault(key, []).append((n, r))
    out = []
    for (mangled, grid, block), members in groups.items():
        measured = [number(r["measured_us"], f"{where}:{n}: measured_us") for n, r in members]
        predicted = [number(r["predicted_us"], f"{where}:{n}: predicted_us") for n, r in members if r["predicted_us"]]
        launches = sum(int(number(r["launches"] or "1", f"{where}:{n}: launches")) for n, r in members)
        m = statistics.median(measured)
        p = statistics.median(predicted) if predicted else None
        bounds = [r["bound"] for _, r in members if r["bound"]]
        bound = max(sorted(set(bounds)), key=bounds.count) if bounds else ""
        notes = sorted({r["note"] for _, r in members if r.get("note")})
        first = members[0][1]
        row = {"app": app["name"], "suite": app["suite"], "half": app["half"], "kernel": first["kernel"],
               "grid": grid, "block": block, "launches": str(launches), "measured_us": fmt(m, 3),
               "predicted_us": fmt(p, 3), "error_pct": fmt(100.0 * (p - m) / m if p is not None and m > 0 else None, 2),
               "bound": bound, "note": "; ".join(notes)}
        for c in PROVENANCE:
            value = first[c] if provenance is None else provenance[c]
            row[c] = relative_command(value, work_prefix) if c == "measurement_command" else value
        out.append(row)
    return out


def from_work(work, list_path, out, run_path=None):
    apps, commits = read_list(list_path)
    run_record = read_run_record(run_path) if run_path else None
    earlier_apps, earlier_launches = {}, {}
    if os.path.exists(os.path.join(out, "apps.csv")) and os.path.exists(os.path.join(out, "launches.csv")):
        for r in read_csv(os.path.join(out, "apps.csv"), APP_COLUMNS):
            earlier_apps[r["app"]] = r
        for r in read_csv(os.path.join(out, "launches.csv"), LAUNCH_COLUMNS):
            earlier_launches.setdefault(r["app"], []).append(r)
    work_prefix = os.path.abspath(work).rstrip("/") + "/"
    launch_rows, app_rows = [], []
    for app in apps:
        folder = os.path.join(work, app["name"])
        status_path = os.path.join(folder, "status.txt")
        if not os.path.exists(status_path) and app["name"] in earlier_apps:
            app_rows.append(dict(earlier_apps[app["name"]], half=app["half"], suite=app["suite"]))
            launch_rows += [dict(r, half=app["half"]) for r in earlier_launches.get(app["name"], [])]
            continue
        status = read_status(status_path) if os.path.exists(status_path) else {}
        predict = os.path.join(folder, "predict.csv")
        rows, own = [], False
        if os.path.exists(predict) and status.get("run_exit") not in (None, "124", "137"):
            rows = read_csv(predict, PREDICT_COLUMNS)
            own = all(c in rows[0] for c in PROVENANCE) if rows else False
        state, reason = app_status(status, rows, run_record)
        distinct = []
        if state in RAN:
            provenance = None
            if not own:
                provenance = profile_provenance(os.path.join(folder, "profile.json"))
            if not own and provenance is None:
                if run_record is None:
                    raise InputError(f"{app['name']}: no provenance for its launches: {predict} has no provenance "
                                     f"columns, {os.path.join(folder, 'profile.json')} none, and no --run record was given")
                provenance = run_provenance(app, status, run_record, run_path)
            distinct = group_launches(app, rows, predict, work_prefix, provenance)
        launch_rows += distinct
        app_rows.append({
            "app": app["name"], "suite": app["suite"], "half": app["half"], "status": state, "reason": reason,
            "build_exit": status.get("build_exit", ""), "build_seconds": status.get("build_seconds", ""),
            "run_exit": status.get("run_exit", ""), "run_seconds": status.get("run_seconds", ""),
            "profiled_launches": str(sum(int(r["launches"]) for r in distinct)) if state in RAN else "",
            "distinct_launches": str(len(distinct)) if state in RAN else "",
            "distinct_launches_20us": str(sum(1 for r in distinct if float(r["measured_us"]) >= THRESHOLD_US))
            if state in RAN else "",
            "folder": app["folder"], "build": app["build"], "run": app["run"],
            "profile_options": app["profile_options"], "repository": REPOSITORIES[app["suite"]],
            "repository_commit": commits.get(app["suite"], "")})
    os.makedirs(out, exist_ok=True)
    launches_text, apps_text = csv_text(LAUNCH_COLUMNS, launch_rows), csv_text(APP_COLUMNS, app_rows)
    # The summary is made from the files as written, exactly as --from makes it.
    summary = summarize(read_back(launches_text, LAUNCH_COLUMNS), read_back(apps_text, APP_COLUMNS), "launches.csv")
    write_text(os.path.join(out, "launches.csv"), launches_text)
    write_text(os.path.join(out, "apps.csv"), apps_text)
    write_text(os.path.join(out, "summary.md"), summary)
    print(f"external_report: {len(app_rows)} applications, {len(launch_rows)} distinct launches -> {out}")


def read_back(text, columns):
    return [{c: r.get(c, "") for c in columns} for r in csv.DictReader(io.StringIO(text, newline=""))]


# --- summary.md -------------------------------------------------------------------------------------

def pct(v):
    return "-" if v is None else f"{v:.1f} %"


def signed(v):
    return "-" if v is None else f"{v:+.1f} %"


def stats(errors):
    if not errors:
        return None
    absolute = [abs(e) for e in errors]
    n = len(errors)
    return {"n": n, "mape": sum(absolute) / n, "median": statistics.median(absolute),
            "within10": 100.0 * sum(1 for a in absolute if a <= 10.0) / n,
            "within25": 100.0 * sum(1 for a in absolute if a <= 25.0) / n,
            "under": 100.0 * sum(1 for e in errors if e < 0) / n, "signed": sum(errors) / n,
            "median_signed": statistics.median(errors)}


def cell(text, width=90):
    text = str(text).replace("|", "\\|")
    return text if len(text) <= width else text[:width - 3] + "..."


def summarize(launches, apps, source):
    for n, r in enumerate(launches, start=2):
        r["_m"] = number(r["measured_us"], f"{source}:{n}: measured_us")
        r["_e"] = number(r["error_pct"], f"{source}:{n}: error_pct") if r["error_pct"] else None
        if r["half"] not in HALVES:
            raise InputError(f"{source}:{n}: half {r['half']!r}, expected development or held-out")
    big = [r for r in launches if r["_m"] >= THRESHOLD_US]
    small = [r for r in launches if r["_m"] < THRESHOLD_US]
    lines = ["# External validation set: measured against predicted", "",
             "Public CUDA applications nobody here wrote, each built from its own sources, run once under "
             "`warpmodel profile -- APP` and predicted with `warpmodel predict-app` (the `hopper` model and this "
             "GPU's `device.json`), as a user would (`scripts/external_suite.sh`; docs/validation.md, "
             "\"External validation set\"). The halves were fixed in `scripts/external_suite.list` before any "
             "model term saw these applications; the held-out half is scored, never tuned on.", "",
             "A distinct launch is one kernel at one grid and block shape within an application (its repeated "
             "launches grouped, median times); the error is (predicted - measured) / measured. Every table "
             f"here is made from `launches.csv` and `apps.csv` (`scripts/external_report.py --from`).", ""]
    suites = sorted({(a["suite"], a["repository"], a["repository_commit"]) for a in apps})
    lines += ["Sources: " + "; ".join(f"{s} {repo} at {c or 'an unrecorded commit'}" for s, repo, c in suites) + ".", ""]

    lines += ["## Applications", "",
              "| half | listed | built | ran | failed | distinct launches | launches >= 20 us | below 20 us | no prediction |",
              "|---|---|---|---|---|---|---|---|---|"]
    for half in HALVES + ("both",):
        hs = [a for a in apps if half == "both" or a["half"] == half]
        hl = [r for r in launches if half == "both" or r["half"] == half]
        built = sum(1 for a in hs if a["build_exit"] == "0")
        ran = sum(1 for a in hs if a["status"] in RAN)
        failed = sum(1 for a in hs if a["status"] not in RAN and a["status"] != "not run")
        lines.append(f"| {half} | {len(hs)} | {built} | {ran} | {failed} | {len(hl)} | "
                     f"{sum(1 for r in hl if r['_m'] >= THRESHOLD_US)} | {sum(1 for r in hl if r['_m'] < THRESHOLD_US)} | "
                     f"{sum(1 for r in hl if r['_e'] is None)} |")
    trouble = [a for a in apps if a["status"] != "ok"]
    if trouble:
        lines += ["", "Not scored in full:", ""]
        lines += [f"- {a['app']} ({a['suite']}, {a['half']}): {a['status']}" + (f": {a['reason']}" if a["reason"] else "")
                  for a in trouble]
    lines.append("")

    lines += ["## Accuracy over distinct launches", "",
              "| launches | half | count | MAPE | median abs error | within 10 % | within 25 % | under-predicted | mean signed error |",
              "|---|---|---|---|---|---|---|---|---|"]
    for label, subset in ((">= 20 us", big), ("< 20 us", small)):
        for half in HALVES + ("both",):
            s = stats([r["_e"] for r in subset if r["_e"] is not None and (half == "both" or r["half"] == half)])
            if s is None:
                lines.append(f"| {label} | {half} | 0 | - | - | - | - | - | - |")
            else:
                lines.append(f"| {label} | {half} | {s['n']} | {pct(s['mape'])} | {pct(s['median'])} | {pct(s['within10'])} | "
                             f"{pct(s['within25'])} | {pct(s['under'])} | {signed(s['signed'])} |")
    lines.append("")

    for half in HALVES:
        worst = sorted((r for r in big if r["half"] == half and r["_e"] is not None),
                       key=lambda r: (-abs(r["_e"]), r["app"], r["kernel"], r["grid"], r["block"]))[:10]
        lines += [f"## The ten worst launches >= 20 us: {half}", ""]
        if not worst:
            lines += ["None scored.", ""]
            continue
        lines += ["| application | kernel | grid / block | measured (us) | predicted (us) | error | bound |",
                  "|---|---|---|---|---|---|---|"]
        lines += [f"| {r['app']} | {cell(r['kernel'])} | {r['grid']} / {r['block']} | {r['measured_us']} | "
                  f"{r['predicted_us']} | {signed(r['_e'])} | {r['bound'] or '-'} |" for r in worst]
        lines.append("")

    lines += ["## By bound (launches >= 20 us)", "",
              "| bound | development count | development MAPE | development mean signed | held-out count | held-out MAPE | held-out mean signed |",
              "|---|---|---|---|---|---|---|"]
    for bound in sorted({r["bound"] or "-" for r in big if r["_e"] is not None}):
        cells = []
        for half in HALVES:
            s = stats([r["_e"] for r in big if r["_e"] is not None and r["half"] == half and (r["bound"] or "-") == bound])
            cells += ["0", "-", "-"] if s is None else [str(s["n"]), pct(s["mape"]), signed(s["signed"])]
        lines.append(f"| {bound} | " + " | ".join(cells) + " |")
    lines.append("")

    lines += ["## By application", "",
              "| application | suite | half | status | distinct launches | >= 20 us | MAPE >= 20 us | median signed >= 20 us | worst launch >= 20 us |",
              "|---|---|---|---|---|---|---|---|---|"]
    for a in sorted(apps, key=lambda a: (a["half"], a["app"].lower())):
        mine = [r for r in launches if r["app"] == a["app"]]
        scored = [r for r in mine if r["_m"] >= THRESHOLD_US and r["_e"] is not None]
        s = stats([r["_e"] for r in scored])
        worst = max(scored, key=lambda r: (abs(r["_e"]), r["kernel"]), default=None)
        lines.append(f"| {a['app']} | {a['suite']} | {a['half']} | {a['status']} | {len(mine) if a['status'] in RAN else '-'} | "
                     f"{sum(1 for r in mine if r['_m'] >= THRESHOLD_US) if a['status'] in RAN else '-'} | "
                     f"{pct(s['mape']) if s else '-'} | {signed(s['median_signed']) if s else '-'} | "
                     f"{cell(worst['kernel'], 50) + ' ' + signed(worst['_e']) if worst else '-'} |")
    lines.append("")

    lines += ["## Provenance", ""]
    measured = {}
    for r in launches:
        key = tuple(r[c] for c in ("gpu", "driver", "cuda", "sm_clock_mhz", "measured_commit"))
        measured.setdefault(key, []).append(r["measured_date"])
    if not measured:
        lines.append("No launch measured yet.")
    for (gpu, driver, cuda, clock, commit), dates in sorted(measured.items()):
        clock = f"SM clock {clock} MHz" if clock and clock != NOT_RECORDED else "SM clock not recorded"
        lines.append(f"- {gpu}, driver {driver}, CUDA {cuda}, {clock}, warpmodel commit {commit}, "
                     f"measured {min(dates)}" + (f" to {max(dates)}" if max(dates) != min(dates) else "") +
                     f": {len(dates)} distinct launches")
    lines += ["- per launch: `measurement_command` in launches.csv (run in the application's folder, apps.csv's "
              "`folder`); per application: its build and run lines and the suite's repository and commit in apps.csv",
              "- made by `scripts/external_report.py` from launches.csv and apps.csv", ""]
    return "\n".join(lines)


def from_files(folder, out):
    launches = read_csv(os.path.join(folder, "launches.csv"), LAUNCH_COLUMNS)
    apps = read_csv(os.path.join(folder, "apps.csv"), APP_COLUMNS)
    text = summarize([{c: r[c] for c in LAUNCH_COLUMNS} for r in launches], [{c: r[c] for c in APP_COLUMNS} for r in apps],
                     os.path.join(folder, "launches.csv"))
    os.makedirs(out, exist_ok=True)
    write_text(os.path.join(out, "summary.md"), text)
    print(f"external_report: {len(apps)} applications, {len(launches)} distinct launches -> {out}/summary.md")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", help="OUT_DIR/.work: one folder per application (status.txt, predict.csv)")
    ap.add_argument("--list", help="scripts/external_suite.list")
    ap.add_argument("--from", dest="source", help="a folder with launches.csv and apps.csv: summary.md from them")
    ap.add_argument("--out", help="where to write (default: the --from folder)")
    ap.add_argument("--run", help="the run record (JSON: gpu, driver, cuda, commit; not_run_reason): the provenance "
                                  "of launches whose predict.csv and profile.json carry none")
    a = ap.parse_args(argv[1:])
    if a.source:
        if a.work or a.list or a.run:
            raise InputError("--from reads launches.csv and apps.csv; it takes no --work, --list or --run")
        from_files(a.source, a.out or a.source)
    elif a.work and a.list and a.out:
        if not os.path.isdir(a.work):
            raise InputError(f"{a.work}: not a folder")
        from_work(a.work, a.list, a.out, a.run)
    else:
        raise InputError("give --work DIR --list FILE --out DIR, or --from DIR")


if __name__ == "__main__":
    try:
        main(sys.argv)
    except InputError as e:
        print(f"external_report.py: {e}", file=sys.stderr)
        sys.exit(2)
