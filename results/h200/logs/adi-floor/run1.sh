#!/bin/bash
# Floor probe, run 1 (not kept): floor.cu at 2048^2 (twice) and 4096^2, alternated with the kept fused sweep
# (bench_adi of the commit given as $1, built on the development machine) on the same card.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
F='copy/d2d/256|adi/fused/double/2048/(step|sweep-x|sweep-y)'
for r in 1 2; do
  timeout 120 exp/floor/floor 2048 2048 30 > $OUT/floor-2048-$r.json 2> $OUT/floor-2048-$r.err; echo "floor 2048 run $r rc=$?"
  timeout 60 exp/bin/base/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-base-$r.json --benchmark_out_format=json > /dev/null 2> $OUT/bench-base-$r.err; echo "bench rc=$?"
done
timeout 120 exp/floor/floor 4096 4096 20 > $OUT/floor-4096.json 2> $OUT/floor-4096.err; echo "floor 4096 rc=$?"
timeout 120 compute-sanitizer --tool memcheck exp/floor/floor 512 512 2 > $OUT/memcheck.txt 2>&1; echo "memcheck rc=$?"
date -Iseconds | tee $OUT/date.txt
cat $OUT/floor-*.err
python3 - <<'PY'
import json, os, glob
for f in sorted(glob.glob(os.environ['OUT'] + '/floor-*.json')):
    d = json.load(open(f))
    print(os.path.basename(f), d['gpu'])
    for r in d['rows']: print('  %-16s work %3d  %8.2f us  %6.3f TB/s' % (r['kernel'], r['work_fma_per_pair'], r['median_us'], r['tb_per_s']))
for f in sorted(glob.glob(os.environ['OUT'] + '/bench-base-*.json')):
    for b in json.load(open(f))['benchmarks']: print(os.path.basename(f), b['name'], round(b['real_time'], 2), b.get('bytes_per_second', ''))
PY
tail -3 $OUT/memcheck.txt
(cd $OUT && tar czf floor-run.tgz *.json *.err *.txt && rm -f *.json *.err gpu.txt memcheck.txt)
