#!/usr/bin/env bash
# Measures the model engine's speed (bench_model, one core) and writes results/cpu-model/:
# bench_model.json (Google Benchmark's JSON, with a provenance block) and bench_model.md.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${BENCH_MODEL:-build/model/bench_model}
[ -x "$bench" ] || scripts/setup.sh
out=results/cpu-model
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmd="taskset -c 0 $bench --benchmark_repetitions=5 --benchmark_min_time=0.5 --benchmark_report_aggregates_only=true --benchmark_format=json"
$cmd >"$tmp/raw.json"
python3 - "$tmp/raw.json" "$out" "$cmd" <<'PY'
import json, os, platform, subprocess, sys, datetime
raw, out, cmd = sys.argv[1], sys.argv[2], sys.argv[3]
data = json.load(open(raw))
def sh(c):
    try: return subprocess.run(c, shell=True, capture_output=True, text=True).stdout.strip()
    except Exception: return ""
cpu = sh("lscpu | sed -n 's/^Model name: *//p'") or platform.processor()
data["provenance"] = {
    "what": "warpmodel model engine speed, one core (bench_model)",
    "cpu": cpu, "cores_on_machine": os.cpu_count(),
    "compiler": sh("c++ --version | head -1"),
    "date_utc": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
    "git_commit": sh("git rev-parse HEAD") + (" (dirty)" if sh("git status --porcelain -- model cli") else ""),
    "command": cmd,
}
tmp_json = os.path.join(out, ".bench_model.json.tmp")
json.dump(data, open(tmp_json, "w"), indent=2)
os.replace(tmp_json, os.path.join(out, "bench_model.json"))
rows = [b for b in data["benchmarks"] if b.get("aggregate_name") == "median"]
lines = ["# bench_model: model engine speed on one core", "",
         "Medians of 5 repetitions. Targets: >= 5 M predictions/s for gpuperf-2012; a 1,024-shape sweep < 1 ms.", "",
         "| benchmark | model | time | predictions/s |", "|---|---|---|---|"]
for b in rows:
    t = f"{b['real_time']:.1f} {b['time_unit']}"
    ips = f"{b['items_per_second']/1e6:.2f} M/s" if "items_per_second" in b else "-"
    lines.append(f"| {b['run_name']} | {b.get('label','')} | {t} | {ips} |")
p = data["provenance"]
lines += ["", "Provenance: " + "; ".join(f"{k}: {v}" for k, v in p.items())]
tmp_md = os.path.join(out, ".bench_model.md.tmp")
open(tmp_md, "w").write("\n".join(lines) + "\n")
os.replace(tmp_md, os.path.join(out, "bench_model.md"))
print("\n".join(lines))
PY
