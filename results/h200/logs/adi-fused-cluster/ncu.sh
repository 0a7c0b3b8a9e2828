#!/bin/bash
# Nsight Compute on fused-cluster's two sweeps at 2048^2 double (bench_adi of 2467c36's kernels, built on the
# development machine): where the 114 + 146 us go, for the next session.
set -u
export LD_LIBRARY_PATH=$PWD/exp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
for k in sweep-x sweep-y; do
  re=$([ $k = sweep-x ] && echo fused_cluster_sweep_x || echo cluster_sweep_kernel)
  timeout 200 ncu --kernel-name regex:$re --launch-skip 5 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats \
    --section WarpStateStats --section MemoryWorkloadAnalysis_Tables --section MemoryWorkloadAnalysis \
    --section ComputeWorkloadAnalysis --section InstructionStats --page details --csv \
    exp/bin/head/bench_adi --benchmark_filter="adi/fused-cluster/double/2048/$k" > $OUT/ncu-$k.csv 2> $OUT/ncu-$k.err
  echo "$k rc=$?"; wc -l $OUT/ncu-$k.csv
done
date -Iseconds >> $OUT/date.txt
python3 - <<'PY'
import csv, os
out = os.environ["OUT"]
want = ("Duration", "Compute (SM) Throughput", "Memory Throughput", "DRAM Throughput", "Achieved Occupancy",
        "Issue Slots Busy", "No Eligible", "Eligible Warps Per Scheduler", "Active Warps Per Scheduler",
        "Warp Cycles Per Issued Instruction", "L1/TEX Hit Rate", "L2 Hit Rate", "Registers Per Thread",
        "Block Limit Registers", "Block Limit Shared Mem", "Executed Instructions", "Mem Busy", "Max Bandwidth",
        "L1/TEX Cache Throughput", "Shared Memory", "Bank")
for k in ("sweep-x", "sweep-y"):
    p = os.path.join(out, f"ncu-{k}.csv")
    rows = list(csv.reader(open(p))) if os.path.exists(p) else []
    if not rows: continue
    h = rows[0]
    for r in rows[1:]:
        d = dict(zip(h, r))
        if any(w in d.get("Metric Name", "") for w in want):
            print(k, "|", d.get("Section Name"), "|", d.get("Metric Name"), "|", d.get("Metric Unit"), "|", d.get("Metric Value"))
PY
