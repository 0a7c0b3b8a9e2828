#!/bin/bash
# PDL probe (not kept): exp/bin/{base,pdl}/launch_probe (launch_probe.cpp linked against $1's library, and
# against it with pdl.patch applied), alternated twice at 2048^2 double and single and 1024^2 double, one card.
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p $OUT/r
for r in 1 2; do for cfg in "2048 double" "2048 single" "1024 double"; do for v in base pdl; do
  set -- $cfg
  timeout 120 exp/bin/$v/launch_probe $1 $2 5 > $OUT/r/$v-$1-$2-$r.json 2> $OUT/r/$v-$1-$2-$r.err; echo "$v $1 $2 run $r rc=$?"
done; done; done
date -Iseconds | tee $OUT/r/date.txt; cp $OUT/gpu.txt $OUT/r/
python3 - <<'PY'
import json, glob, os
for f in sorted(glob.glob(os.environ['OUT'] + '/r/*.json')):
    d = json.load(open(f))
    print(os.path.basename(f), d['state_hash'], d['graph_state_equals_stream_state'], d['median_step_us'])
PY
(cd $OUT && tar czf pdl-run.tgz r && rm -rf r gpu.txt)
