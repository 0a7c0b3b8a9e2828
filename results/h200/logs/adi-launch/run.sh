#!/bin/bash
# Launch-overhead probe (not kept): exp/launch/launch_probe, built on the development machine against the
# libraries of the commit given as $1, at four sizes and both precisions, on one card.
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
for cfg in "2048 double" "2048 single" "1024 double" "4096 double" "2048 double"; do
  set -- $cfg
  timeout 120 exp/launch/launch_probe $1 $2 5 > $OUT/launch-$1-$2.json.tmp 2> $OUT/launch-$1-$2.err; echo "launch $1 $2 rc=$?"
  cat $OUT/launch-$1-$2.json.tmp >> $OUT/launch-$1-$2.json; rm $OUT/launch-$1-$2.json.tmp
done
date -Iseconds | tee $OUT/date.txt
cat $OUT/*.json; cat $OUT/*.err
(cd $OUT && tar czf launch-run.tgz *.json *.err gpu.txt && rm -f *.json *.err gpu.txt)
