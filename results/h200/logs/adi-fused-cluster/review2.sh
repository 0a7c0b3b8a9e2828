#!/bin/bash
# After the review commit b33c72d (host code of fused-cluster's launch and its cluster width rule; every kernel's
# SASS unchanged): test_adi_gpu (what ctest's gpu.adi runs) built on the development machine at 8cd3549, then
# compute-sanitizer memcheck and racecheck of Sanitizer.FusedClusterSmall.
set -u
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
timeout 150 exp/bin/final/test_adi_gpu > $OUT/test_adi_gpu.txt 2>&1; echo "test_adi_gpu rc=$?"; grep -E "PASSED|FAILED|worst" $OUT/test_adi_gpu.txt | head
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool exp/bin/final/test_adi_gpu --gtest_filter='Sanitizer.FusedClusterSmall' > $OUT/$tool.txt 2>&1; echo "$tool rc=$?"; tail -2 $OUT/$tool.txt
done
date -Iseconds >> $OUT/date.txt
