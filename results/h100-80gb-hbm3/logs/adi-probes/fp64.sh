#!/bin/bash
# FP64 instructions of one 2048^2 double sweep-x, unpatched and without friction / convection.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $OUT/gpu.txt
for v in base nofric noconv; do
  timeout 100 ncu --clock-control none --kernel-name regex:fused_sweep --launch-skip 2 --launch-count 1 \
    --metrics smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,smsp__inst_executed.sum,gpu__time_duration.sum \
    exp/bin/$v/bench_adi --benchmark_filter='adi/fused/double/2048/sweep-x/' > $OUT/ncu-fp64-$v.txt 2>&1
done
cd $OUT && tar czf r.tgz *.txt && rm -f *.txt
