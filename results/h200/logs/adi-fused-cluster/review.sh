#!/bin/bash
# After the review commit (the shared-memory layout in one place; cluster_sweep_kernel's SASS changed in its
# offset arithmetic): every ADI GPU test (test_adi_gpu, what ctest's gpu.adi runs) and the fused-cluster
# sanitizers, on a test binary built on the development machine at that commit.
set -u
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
timeout 120 exp/bin/rv/test_adi_gpu > $OUT/test_adi_gpu.txt 2>&1; echo "test_adi_gpu rc=$?"; grep -E "PASSED|FAILED|tests ran" $OUT/test_adi_gpu.txt
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool exp/bin/rv/test_adi_gpu --gtest_filter='Sanitizer.FusedClusterSmall' > $OUT/$tool.txt 2>&1; echo "$tool rc=$?"; tail -1 $OUT/$tool.txt
done
date -Iseconds >> $OUT/date.txt
