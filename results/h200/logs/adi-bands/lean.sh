#!/bin/bash
# A/B/C: base = 37f4969 (four transpose kernels), general = band transposes as run 4 of
# results/h200/logs/adi-bands/ (on 41e014c), lean = the same with transpose_band_lean for blocks of whole
# warps. GPU tests and compute-sanitizer of lean first (the 256-cell fused cases use the lean path),
# then the bench_adi binaries alternated twice on one card. Run from the repository root on the device.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
timeout 200 exp/bin/${TESTED:-lean}/test_adi_gpu > $OUT/test.txt 2>&1; echo "test rc=$?"; tail -3 $OUT/test.txt
F_SAN='Sanitizer.FusedSmall:Variants/AgainstCpu.HundredStepsAgree/Fused8_double_256:Variants/AgainstCpu.HundredStepsAgree/Fused4_single_256'
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 exp/bin/${TESTED:-lean}/test_adi_gpu --gtest_filter="$F_SAN" > $OUT/$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/$tool.txt | tr '\n' ' ')"
done
F=${FILTER:-'copy/d2d/256|adi/fused/.*/step/|adi/fused/(double|single)/(2048|4096)/sweep-'}
for r in 1 2; do
  for v in ${VARIANTS:-base lean general}; do
    exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
  done
done
date -Iseconds | tee $OUT/date.txt
cd $OUT && tar czf r.tgz *.txt *.json && rm -f *.txt *.json
