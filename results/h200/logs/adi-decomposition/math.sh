#!/bin/bash
# The device approximations test (tests/adi/test_adi_math_gpu.cu) as committed and with EXP_RCP3 (probe), then,
# if the committed one passed, the GPU tests of the commit (scripts/characterize_gpu.sh).
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
exp/bin/math/test_adi_gpu --gtest_filter='DeviceApproximations*' > $OUT/math.txt 2>&1; rc=$?; echo "math rc=$rc"; grep -E "worst|OK|FAILED" $OUT/math.txt
exp/bin/mathrcp3/test_adi_gpu --gtest_filter='DeviceApproximations*' > $OUT/math-rcp3.txt 2>&1; echo "math-rcp3 rc=$?"; grep -E "worst|OK|FAILED" $OUT/math-rcp3.txt
date -Iseconds | tee $OUT/date.txt
[ $rc = 0 ] || exit 1
WARPMODEL_GIT_COMMIT=$1 scripts/characterize_gpu.sh --only build,gpu-tests results/h200 > $OUT/characterize.log 2>&1; echo "characterize rc=$?"
tail -5 results/h200/gpu-tests.log
cp results/h200/gpu-tests.log results/h200/characterize_gpu.provenance.json $OUT/
