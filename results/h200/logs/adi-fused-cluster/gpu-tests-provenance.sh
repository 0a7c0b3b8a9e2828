#!/bin/bash
# After run-adi's JSON gained its provenance record (89e2d3e): the GPU tests built on the device, the run-adi
# CLI tests (one of them reads that record) and one run-adi -o. bash gpu-tests-provenance.sh <full commit>
set -u
export WARPMODEL_GIT_COMMIT=$1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
timeout 450 scripts/characterize_gpu.sh --only build,gpu-tests results/h200 > $OUT/characterize.txt 2>&1; echo "characterize rc=$?"
tail -4 $OUT/characterize.txt
grep -E "tests passed|Failed|FAILED|\*\*\*" results/h200/gpu-tests.log | head -10
timeout 60 ctest --test-dir build -R RunAdiCli --output-on-failure > $OUT/ctest-run-adi-cli.txt 2>&1; echo "RunAdiCli rc=$?"
grep -E "Test #|tests passed" $OUT/ctest-run-adi-cli.txt
timeout 60 build/cli/warpmodel run-adi --variant fused-cluster --size 2048 --steps 100 --precision double \
  -o $OUT/run-adi-2048-double.json > $OUT/run-adi-2048-double.txt 2>&1; echo "run-adi rc=$?"
grep -E "median|graphs" $OUT/run-adi-2048-double.txt
python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['provenance'])" $OUT/run-adi-2048-double.json
date -Iseconds >> $OUT/date.txt
cp results/h200/gpu-tests.log results/h200/characterize_gpu.provenance.json $OUT/
