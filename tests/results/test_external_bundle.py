#!/usr/bin/env python3
"""results.external_bundle: scripts/external_bundle.py on a hand-made work folder, and the committed files.

Four applications over both halves: one profiled with its cubins (only the cubin holding a launched
kernel is kept: named with its size in profiles.json.xz, its bytes in cubins.json.xz beside it, base64),
one whose profile.json did not come back (kept with "profile": null and why),
one that did not build, one never run. A second call with one application's work folder gone keeps its
entry from the existing file and prunes the runs no status dates any more; a call that only built an
application keeps its earlier run; --merge fills an application from another machine's bundle. --rebuilt takes cubins from a
rebuilt binary (a stand-in cuobjdump) and --check-device refuses them when predict-app on them (a
stand-in warpmodel) does not reproduce the run's predict.csv. Bad input: exit 2, one line, nothing
written. The committed scripts/external_suite.list still holds the split its header's rule gives, and
every committed results/<gpu>/external/profiles.json.xz keeps each application in its listed half, names
cubins for every profile that cubins.json.xz holds at their sizes, and stays well under 1 MB (with the
cubins, under the 2 MiB a re-measure may add).
usage: test_external_bundle.py REPO
"""
import base64
import hashlib
import json
import lzma
import os
import stat
import subprocess
import sys
import tempfile

LIST_HEADER = "name\tsuite\tfolder\tbuild\trun\thalf\tprofile_options"
MAX_BUNDLE_BYTES = 1 << 20
MAX_RUN_BYTES = 2 << 20  # what a re-measure may add (docs/results-layout.md)


def run(script, *args, env=None):
    return subprocess.run([sys.executable, script] + list(args), capture_output=True, text=True, env=env)


def load(path):
    with lzma.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def read_list(path):
    seed, apps = None, []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                if "(seed " in line:
                    seed = line.split("(seed ", 1)[1].split(")")[0]
                continue
            fields = line.rstrip("\n").split("\t")
            if fields[0] != "name" and len(fields) == 7:
                apps.append(fields)
    return seed, apps


def check_committed(repo, failures):
    """The list's halves are its header's rule's; each committed bundle keeps them and its size."""
    path = os.path.join(repo, "scripts", "external_suite.list")
    seed, apps = read_list(path)
    if seed is None:
        failures.append(f"{path}: no seed in the header")
        return
    for suite in {a[1] for a in apps}:
        names = sorted(a[0] for a in apps if a[1] == suite)
        order = sorted(names, key=lambda n: hashlib.sha256(f"{seed}:{n}".encode()).hexdigest())
        want = {n: ("development" if i % 2 == 0 else "held-out") for i, n in enumerate(order)}
        for a in apps:
            if a[1] == suite and a[5] != want[a[0]]:
                failures.append(f"{path}: {a[0]} is in {a[5]}, the split rule puts it in {want[a[0]]}")
    if len(apps) < 60:
        failures.append(f"{path}: {len(apps)} applications, the set has at least 60")
    half = {a[0]: a[5] for a in apps}
    results = os.path.join(repo, "results")
    for gpu in sorted(os.listdir(results)):
        bundle = os.path.join(results, gpu, "external", "profiles.json.xz")
        if not os.path.exists(bundle):
            continue
        if os.path.getsize(bundle) > MAX_BUNDLE_BYTES:
            failures.append(f"{bundle}: {os.path.getsize(bundle)} bytes, more than 1 MiB")
        both = os.path.getsize(bundle) + os.path.getsize(os.path.join(results, gpu, "external", "cubins.json.xz"))
        if both > MAX_RUN_BYTES:
            failures.append(f"{bundle} and cubins.json.xz: {both} bytes, more than a re-measure's 2 MiB")
        doc = load(bundle)
        if doc.get("schema") != "warpmodel.external-profiles/1":
            failures.append(f"{bundle}: schema {doc.get('schema')}")
        cubins = load(os.path.join(results, gpu, "external", "cubins.json.xz")).get("applications", {})
        for e in doc.get("applications", []):
            for c in e.get("cubins", []):
                data = cubins.get(e.get("app"), {}).get(c.get("file"))
                if data is None or len(base64.b64decode(data)) != c.get("bytes"):
                    failures.append(f"{bundle}: {e.get('app')}'s {c.get('file')} not in cubins.json.xz at {c.get('bytes')} bytes")
        names = [e.get("app") for e in doc.get("applications", [])]
        if sorted(names) != sorted(half):
            failures.append(f"{bundle}: applications differ from the list's")
        for e in doc.get("applications", []):
            if half.get(e.get("app")) != e.get("half"):
                failures.append(f"{bundle}: {e.get('app')} in {e.get('half')}, the list has {half.get(e.get('app'))}")
            if e.get("profile") and (not e.get("cubins") or not e.get("sass")):
                failures.append(f"{bundle}: {e.get('app')} has a profile and no cubins or no word on where they came from")
            if e.get("profile") and not e.get("profile", {}).get("provenance", {}).get("commit"):
                failures.append(f"{bundle}: {e.get('app')}'s profile has no provenance")


def profile(kernels, commit="abc1234"):
    return {"schema": "warpmodel.profile/1", "cubins": "profile.cubins",
            "provenance": {"gpu": "NVIDIA H100 80GB HBM3", "driver": "580.1", "cuda": "13.0", "date": "2026-03-04T05:06:07Z",
                           "commit": commit, "command": "warpmodel profile -o /gpu/x/.work/a/profile -- bash -c ./main"},
            "launches": [{"kernel": k, "grid": [1, 1, 1], "block": [32, 1, 1], "duration_ns": 1000.0, "metrics": {}}
                         for k in kernels]}


def main():
    repo = os.path.abspath(sys.argv[1])
    script = os.path.join(repo, "scripts", "external_bundle.py")
    failures = []
    check_committed(repo, failures)
    with tempfile.TemporaryDirectory() as tmp:
        work, logs = os.path.join(tmp, "external", ".work"), os.path.join(tmp, "external", ".logs")
        out = os.path.join(tmp, "external", "profiles.json.xz")
        lst = os.path.join(tmp, "suite.list")
        write(lst, "# a test list\n#   hecbench  https://github.com/zjin-lcf/HeCBench  commit 1111111  (src)\n"
                   "#   rodinia   https://github.com/yuhc/gpu-rodinia   commit 2222222  (cuda)\n" + LIST_HEADER + "\n"
                   "alpha\thecbench\thecbench/src/alpha-cuda\tmake ARCH=sm_90\t./main 3\tdevelopment\t-\n"
                   "beta\trodinia\trodinia/cuda/beta\tnvcc -O3 b.cu -o b\t./b 10\theld-out\t--launch-count 9\n"
                   "gamma\thecbench\thecbench/src/gamma-cuda\tmake ARCH=sm_90\t./main 1\theld-out\t-\n"
                   "delta\thecbench\thecbench/src/delta-cuda\tmake ARCH=sm_90\t./main 2\tdevelopment\t-\n")
        ok = "build_exit\t0\nbuild_seconds\t2\nbuild_reason\t\nrun_exit\t0\nrun_seconds\t5\nrun_reason\t\n" \
             "run_date\t2026-03-04T05:00:00Z\npredict_exit\t0\n"
        # alpha: profiled, cubins kept: 1.cubin holds its kernel, 2.cubin only another one.
        write(os.path.join(work, "alpha", "status.txt"), ok)
        write(os.path.join(work, "alpha", "profile.json"), json.dumps(profile(["_Z5alphaPf"])))
        cubin_alpha = b"\x7fELF...\0_Z5alphaPf\0..."
        os.makedirs(os.path.join(work, "alpha", "profile.cubins"))
        with open(os.path.join(work, "alpha", "profile.cubins", "1.cubin"), "wb") as f:
            f.write(cubin_alpha)
        with open(os.path.join(work, "alpha", "profile.cubins", "2.cubin"), "wb") as f:
            f.write(b"\x7fELF...\0_Z5otherv\0")
        write(os.path.join(logs, "alpha.build.log"), "nvcc -arch=sm_90 -O3 -c main.cu -o main.o\nwarning: x\n"
                                                    "nvcc -arch=sm_90 main.o -o main\n")
        # beta: ran, its predict.csv came back, its profile.json did not.
        write(os.path.join(work, "beta", "status.txt"), ok)
        write(os.path.join(work, "beta", "predict.csv"), "kernel,predicted_us\nb,1.0\n")
        # gamma: did not build. delta: no work folder at all.
        write(os.path.join(work, "gamma", "status.txt"), "build_exit\t2\nbuild_seconds\t1\nbuild_reason\tbuild exit 2: x\n")
        record = os.path.join(tmp, "run.json")
        write(record, json.dumps({"date": "2026-03-04T05:00:00Z", "commit": "abc1234", "gpu": "NVIDIA H100 80GB HBM3",
                                  "gpu_uuid": "GPU-first", "driver": "580.1", "cuda": "13.0", "command": "scripts/external_suite.sh ...",
                                  "suites": []}))
        unused = os.path.join(tmp, "run-unused.json")  # a run no status dates: dropped
        write(unused, json.dumps({"date": "2026-03-01T00:00:00Z", "commit": "0000000"}))
        r = run(script, "--work", work, "--logs", logs, "--list", lst, "--out", out, "--run", record, "--run", unused)
        if r.returncode != 0:
            failures.append(f"first call: exit {r.returncode}: {r.stderr.strip()}")
            doc = {"applications": []}
        else:
            doc = load(out)
        cubin_file = os.path.join(tmp, "external", "cubins.json.xz")
        cubin_doc = load(cubin_file) if os.path.exists(cubin_file) else {}
        apps = {e["app"]: e for e in doc["applications"]}
        if [e["app"] for e in doc["applications"]] != ["alpha", "beta", "gamma", "delta"]:
            failures.append(f"applications in order {[e['app'] for e in doc['applications']]}, want the list's")
        a = apps.get("alpha", {})
        kept = cubin_doc.get("applications", {}).get("alpha", {})
        if a.get("cubins") != [{"file": "1.cubin", "bytes": len(cubin_alpha)}] or sorted(kept) != ["1.cubin"] or \
                base64.b64decode(kept["1.cubin"]) != cubin_alpha or cubin_doc.get("schema") != "warpmodel.external-cubins/1":
            failures.append(f"alpha's cubins {a.get('cubins')} / {sorted(kept)}, want 1.cubin alone, its bytes unchanged")
        if a.get("build_commands") != ["nvcc -arch=sm_90 -O3 -c main.cu -o main.o", "nvcc -arch=sm_90 main.o -o main"]:
            failures.append(f"alpha's build commands {a.get('build_commands')}")
        if (a.get("half"), a.get("status", {}).get("run_exit"), a.get("profile", {}).get("launches", [{}])[0].get("kernel")) != \
                ("development", "0", "_Z5alphaPf"):
            failures.append("alpha's half, status or profile not kept as given")
        b = apps.get("beta", {})
        if b.get("profile") is not None or "not kept" not in b.get("profile_missing", "") or b.get("profile_options") != "--launch-count 9":
            failures.append(f"beta: profile {b.get('profile')!r}, profile_missing {b.get('profile_missing')!r}")
        if apps.get("gamma", {}).get("status", {}).get("build_exit") != "2" or apps.get("delta", {}).get("status") != {}:
            failures.append("gamma's build failure or delta's empty status not kept")
        if [s["commit"] for s in doc.get("suites", [])] != ["1111111", "2222222"]:
            failures.append(f"suites {doc.get('suites')}")
        prov = doc.get("provenance", {})
        if prov.get("commit") != "abc1234" or {"build": "make ARCH=sm_90", "applications": ["alpha", "gamma", "delta"]} \
                not in prov.get("build_lines", []):
            failures.append(f"provenance {prov}")
        if [x.get("date") for x in doc.get("runs", [])] != ["2026-03-04T05:00:00Z"]:
            failures.append(f"runs after the first call {[x.get('date') for x in doc.get('runs', [])]}: the one no "
                            "status dates should be dropped")

        # A later call: alpha's work folder gone (kept from the file), beta run again with a new run record;
        # the first run is still alpha's, so both runs stay.
        os.rename(os.path.join(work, "alpha"), os.path.join(tmp, "alpha-away"))
        write(os.path.join(work, "beta", "status.txt"), ok.replace("2026-03-04T05:00:00Z", "2026-03-05T00:00:00Z"))
        write(record, json.dumps({"date": "2026-03-05T00:00:00Z", "commit": "def5678", "gpu": "NVIDIA H100 80GB HBM3",
                                  "gpu_uuid": "GPU-second"}))
        r = run(script, "--work", work, "--list", lst, "--out", out, "--run", record)
        doc2 = load(out) if r.returncode == 0 else {"applications": [], "runs": []}
        if r.returncode != 0 or {e["app"]: e for e in doc2["applications"]}.get("alpha") != a or \
                load(cubin_file).get("applications", {}).get("alpha") != kept:
            failures.append(f"second call: alpha's entry or cubins not kept from the files (exit {r.returncode}: "
                            f"{r.stderr.strip()})")
        if [x.get("date") for x in doc2.get("runs", [])] != ["2026-03-04T05:00:00Z", "2026-03-05T00:00:00Z"]:
            failures.append(f"runs after the second call {[x.get('date') for x in doc2.get('runs', [])]}")
        # Two calls on two cards: the provenance names both, the last one's as gpu_uuid.
        if doc2.get("provenance", {}).get("gpu_uuids") != ["GPU-first", "GPU-second"] or \
                doc2.get("provenance", {}).get("gpu_uuid") != "GPU-second":
            failures.append(f"cards after the second call {doc2.get('provenance', {}).get('gpu_uuids')}")
        # alpha run again too: no status dates the first run any more.
        os.rename(os.path.join(tmp, "alpha-away"), os.path.join(work, "alpha"))
        write(os.path.join(work, "alpha", "status.txt"), ok.replace("2026-03-04T05:00:00Z", "2026-03-05T00:00:00Z"))
        r = run(script, "--work", work, "--list", lst, "--out", out, "--run", record)
        doc3 = load(out) if r.returncode == 0 else {"runs": []}
        if [x.get("date") for x in doc3.get("runs", [])] != ["2026-03-05T00:00:00Z"]:
            failures.append(f"runs after every application ran again {[x.get('date') for x in doc3.get('runs', [])]}")

        # A call that only built alpha (or stopped before running it) keeps alpha's run from the file.
        ran_status = open(os.path.join(work, "alpha", "status.txt")).read()
        write(os.path.join(work, "alpha", "status.txt"), "build_exit\t0\nbuild_seconds\t1\nbuild_reason\t\n")
        r = run(script, "--work", work, "--list", lst, "--out", out, "--run", record)
        alpha = {e["app"]: e for e in load(out)["applications"]}.get("alpha", {}) if r.returncode == 0 else {}
        if r.returncode != 0 or alpha.get("status", {}).get("run_exit") != "0" or not alpha.get("profile"):
            failures.append(f"a build-only call erased alpha's run (exit {r.returncode}: {r.stderr.strip()})")
        write(os.path.join(work, "alpha", "status.txt"), ran_status)
        # --merge: delta ran on another machine; its bundle fills delta here, with its run record.
        other_work = os.path.join(tmp, "other", ".work")
        other_out = os.path.join(tmp, "other", "profiles.json.xz")
        write(os.path.join(other_work, "delta", "status.txt"), ok.replace("2026-03-04T05:00:00Z", "2026-03-06T00:00:00Z"))
        write(os.path.join(other_work, "delta", "profile.json"), json.dumps(profile(["_Z5deltav"])))
        os.makedirs(os.path.join(other_work, "delta", "profile.cubins"))
        with open(os.path.join(other_work, "delta", "profile.cubins", "1.cubin"), "wb") as f:
            f.write(b"\x7fELF...\0_Z5deltav\0")
        other_record = os.path.join(tmp, "run-other.json")
        write(other_record, json.dumps({"date": "2026-03-06T00:00:00Z", "commit": "fed4321"}))
        r1 = run(script, "--work", other_work, "--list", lst, "--out", other_out, "--run", other_record)
        r = run(script, "--work", work, "--list", lst, "--out", out, "--run", record, "--merge", other_out)
        doc4 = load(out) if r1.returncode == 0 and r.returncode == 0 else {"applications": [], "runs": []}
        delta = {e["app"]: e for e in doc4["applications"]}.get("delta", {})
        if delta.get("status", {}).get("run_date") != "2026-03-06T00:00:00Z" or not delta.get("profile") or \
                sorted(load(cubin_file)["applications"].get("delta", {})) != ["1.cubin"] or \
                [x.get("date") for x in doc4["runs"]] != ["2026-03-05T00:00:00Z", "2026-03-06T00:00:00Z"] or \
                {e["app"]: e for e in doc4["applications"]}.get("alpha", {}).get("status", {}).get("run_date") != \
                "2026-03-05T00:00:00Z":
            failures.append(f"--merge: delta {delta.get('status')}, runs {[x.get('date') for x in doc4['runs']]} "
                            f"(exit {r1.returncode}/{r.returncode}: {r.stderr.strip()})")

        # --rebuilt: alpha's cubins folder gone; a stand-in cuobjdump writes the rebuilt binary's cubins, a
        # stand-in warpmodel prints the predictions; --check-device compares them with alpha's predict.csv.
        src = os.path.join(tmp, "src")
        write(os.path.join(src, "hecbench", "src", "alpha-cuda", "main"), "binary", 0o755)
        tools = os.path.join(tmp, "tools")
        write(os.path.join(tools, "cuobjdump"),
              "#!/bin/sh\nprintf '\\177ELF\\000_Z5alphaPf\\000rebuilt' > main.1.sm_90.cubin\n", 0o755)
        write(os.path.join(tools, "warpmodel"), "#!/bin/sh\nprintf 'kernel,predicted_us\\nalpha,1.5\\n'\n", 0o755)
        for f in os.listdir(os.path.join(work, "alpha", "profile.cubins")):
            os.remove(os.path.join(work, "alpha", "profile.cubins", f))
        os.rmdir(os.path.join(work, "alpha", "profile.cubins"))
        env = dict(os.environ, WARPMODEL_CUOBJDUMP=os.path.join(tools, "cuobjdump"))
        device = os.path.join(tmp, "device.json")
        write(device, "{}")
        rebuilt = ["--work", work, "--list", lst, "--out", out, "--rebuilt", src, "--check-device", device,
                   "--warpmodel", os.path.join(tools, "warpmodel")]
        write(os.path.join(work, "alpha", "predict.csv"), "kernel,predicted_us\nalpha,2.5\n")
        before = open(out, "rb").read()
        r = run(script, *rebuilt, env=env)
        if r.returncode != 2 or "differ" not in r.stderr or open(out, "rb").read() != before:
            failures.append(f"--check-device with other predictions: exit {r.returncode}, {r.stderr.strip()!r}; "
                            "want exit 2 and the file unchanged")
        write(os.path.join(work, "alpha", "predict.csv"), "kernel,predicted_us\nalpha,1.5\n")
        r = run(script, *rebuilt, env=env)
        alpha = {e["app"]: e for e in load(out)["applications"]}.get("alpha", {}) if r.returncode == 0 else {}
        if r.returncode != 0 or [c["file"] for c in alpha.get("cubins", [])] != ["main.1.sm_90.cubin"] or \
                sorted(load(cubin_file)["applications"].get("alpha", {})) != ["main.1.sm_90.cubin"] or \
                not alpha.get("sass", "").startswith("rebuilt") or "reproduces all 1 predictions" not in alpha.get("sass", ""):
            failures.append(f"--rebuilt: exit {r.returncode} {r.stderr.strip()!r}; sass {alpha.get('sass')!r}")

        # Bad input: exit 2, one line, nothing written.
        before, cubins_before = open(out, "rb").read(), open(cubin_file, "rb").read()
        badlist = os.path.join(tmp, "bad.list")
        write(badlist, LIST_HEADER + "\nx\tnosuch\tf\tb\tr\tdevelopment\t-\n")
        cases = [["--work", work, "--list", os.path.join(tmp, "missing.list"), "--out", out],
                 ["--work", work, "--list", badlist, "--out", out],
                 ["--work", os.path.join(tmp, "nowhere"), "--list", lst, "--out", out],
                 ["--work", work, "--list", lst, "--out", os.path.join(tmp, "profiles.json")],
                 ["--work", work, "--list", lst, "--out", out, "--check-device", device]]
        write(os.path.join(work, "gamma", "profile.json"), "{not json")
        write(os.path.join(work, "gamma", "status.txt"), ok)
        cases.append(["--work", work, "--list", lst, "--out", out])
        for args in cases:
            r = run(script, *args)
            if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1:
                failures.append(f"{args[-2:]}: exit {r.returncode}, stderr {r.stderr.strip()!r}; want exit 2 and one line")
            if open(out, "rb").read() != before or open(cubin_file, "rb").read() != cubins_before:
                failures.append(f"{args[-2:]}: changed the files on bad input")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("external_bundle: entries, cubins kept, runs merged and pruned, --rebuilt with its check, bad input, "
              "the committed split and bundles are as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
