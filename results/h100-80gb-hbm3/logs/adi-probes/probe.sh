#!/bin/bash
# Probe runs of 2026-11-28 (README.md): A/B of bench_adi binaries under exp/bin/<variant>/ (variant_C: with
# EXP_CARVEOUT=C), optionally the transpose probe (TP=1), a test binary first (TEST=...), ncu metrics
# (NCUM="variants") and ncu sections (NCU=1) of one 2048^2 double sweep-x. Run from the repository root.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
[ -n "$TP" ] && exp/tp | tee $OUT/transpose.txt   # exp/tp: transpose_probe.cu built with nvcc -O3 -arch=sm_90
[ -n "$TEST" ] && { $TEST > $OUT/test.txt 2>&1; echo "test rc=$?"; tail -3 $OUT/test.txt; }
F=${FILTER:-'copy/d2d/256|adi/fused/(double|single)/(2048|4096)/(step|sweep-x|sweep-y)/'}
for r in 1 2; do
  for v in $VARIANTS; do
    b=${v%%_*}; c=${v#*_}; [ "$c" = "$v" ] && c=""
    B=exp/bin/$b/bench_adi
    $( [ -n "$c" ] && echo env EXP_CARVEOUT=$c ) $B --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
  done
done
if [ -n "$NCUM" ]; then
  for v in $NCUM; do
    b=${v%%_*}; c=${v#*_}; [ "$c" = "$v" ] && c=""
    $( [ -n "$c" ] && echo env EXP_CARVEOUT=$c ) timeout 120 ncu --clock-control none --kernel-name regex:fused_sweep --launch-skip 2 --launch-count 1 --metrics l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,launch__occupancy_limit_shared_mem,launch__shared_mem_config_size exp/bin/$b/bench_adi --benchmark_filter='adi/fused/double/2048/sweep-x/' > $OUT/ncum-$v.txt 2>&1
  done
fi
if [ -n "$NCU" ]; then
  timeout 200 ncu --clock-control none --kernel-name regex:fused_sweep --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section InstructionStats --section SchedulerStats \
    exp/bin/base/bench_adi --benchmark_filter='adi/fused/double/2048/sweep-x/' > $OUT/ncu-base.txt 2>&1
  echo "ncu rc=$?"
fi
date -Iseconds | tee $OUT/date.txt
cd $OUT && tar czf r.tgz *.txt *.json && rm -f *.txt *.json
