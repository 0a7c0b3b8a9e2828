#!/bin/bash
# The issue-15 variants on another GPU, call 2 of 2: the adi stage (bench_adi every variant and size, DRAM bytes
# per step, the report), then run-adi of fused-cluster as a user would, with --check at 1024^2. The same steps as
# the H200's m3.sh, for any results folder. bash tables.sh <full commit> <results folder>
set -u
export WARPMODEL_GIT_COMMIT=$1
dir=$2
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
timeout 480 scripts/characterize_gpu.sh --only build,adi $dir > $OUT/characterize.txt 2>&1; echo "characterize rc=$?"
tail -4 $OUT/characterize.txt
mkdir -p $OUT/tables
cp $dir/adi.json $dir/adi.md $dir/adi.csv $dir/tridiagonal.* $dir/adi-dram-* $dir/characterize_gpu.provenance.json \
   $dir/adi_steps.png $OUT/tables/ 2>/dev/null
grep -E "\| 2048\^2 \| double \| fused" $dir/adi.md | head -4
W=build/cli/warpmodel
for a in "2048 double" "1024 double --check" "1024 single --check"; do
  set -- $a; name=run-adi-$1-$2${3:+-check}
  timeout 25 $W run-adi --variant fused-cluster --size $1 --steps 100 --precision $2 ${3:-} -o $OUT/$name.json > $OUT/$name.txt 2>&1
  echo "$name rc=$?"
done
cat $OUT/run-adi-*.txt | grep -E "per step|check"
date -Iseconds >> $OUT/date.txt
cd $OUT && tar czf tables.tgz gpu.txt date.txt characterize.txt tables run-adi-* && rm -rf tables run-adi-* characterize.txt
