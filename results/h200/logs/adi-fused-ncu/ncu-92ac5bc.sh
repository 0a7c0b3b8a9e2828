#!/bin/bash
# Nsight Compute on the fused sweeps of 2048^2 steps (the base binary: 92ac5bc's ADI code). The first step
# starts from zero fluxes (every friction square root takes CUDA's sqrt(0) slow path), so the launches
# profiled are those of the 6th step (launch-skip 10 of the sweeps), as bench_adi times steps after 5
# warm-up steps.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
ncu --version | tail -1 > $OUT/ncu-version.txt
W=exp/bin/base/warpmodel
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats"
for p in double single; do
  ncu --kernel-name regex:fused_sweep --launch-skip 10 --launch-count 2 $S $W run-adi --size 2048 --steps 6 --variant fused --precision $p > $OUT/ncu-sweeps-$p-step6.txt 2>&1; echo "sweeps $p rc=$?"
done
ncu --kernel-name regex:fused_sweep --launch-skip 10 --launch-count 1 --section SourceCounters --section WarpStateStats --page source --csv --print-source sass $W run-adi --size 2048 --steps 6 --variant fused --precision double > $OUT/ncu-source-sweep-x-double-step6.csv 2>&1; echo "source rc=$?"
date -Iseconds | tee $OUT/date.txt
cd $OUT && gzip ncu-source-sweep-x-double-step6.csv && tar czf r.tgz *.txt *.gz && rm -f *.txt *.gz
