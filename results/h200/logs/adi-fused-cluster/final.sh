#!/bin/bash
# At the session's last commit (the y-sweep's trips unsigned, as measured in m5/m6; ClusterTrips' helper since, SASS
# identical): test_adi_gpu (what ctest's gpu.adi runs) built on the development machine at 5be5f12, then
# compute-sanitizer memcheck, racecheck and synccheck of Sanitizer.FusedClusterSmall.
set -u
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
timeout 150 exp/bin/head/test_adi_gpu > $OUT/test_adi_gpu.txt 2>&1; echo "test_adi_gpu rc=$?"; grep -E "PASSED|FAILED|worst" $OUT/test_adi_gpu.txt | head
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool exp/bin/head/test_adi_gpu --gtest_filter='Sanitizer.FusedClusterSmall' > $OUT/$tool.txt 2>&1; echo "$tool rc=$?"; tail -2 $OUT/$tool.txt
done
date -Iseconds >> $OUT/date.txt
