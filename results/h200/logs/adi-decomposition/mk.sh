#!/bin/bash
# Build one probe binary pair: exp/mk.sh NAME MACRO... (macros defined after fused.hpp's #pragma once).
set -e
name=$1; shift
f=stencils/adi/include/warpmodel/adi/fused.hpp
cp $f /tmp/fused.hpp.orig
defs=""; for m in "$@"; do defs="$defs#define $m\n"; done
sed -i "88a\\$defs" $f
touch stencils/adi/gpu/*.cu
ok=0; (cd build && make bench_adi test_adi_gpu -j2 > /tmp/mk.log 2>&1) || ok=1
cp /tmp/fused.hpp.orig $f
grep -E "error|warning: v" /tmp/mk.log | head -20
[ $ok = 0 ] || { echo "make failed: /tmp/mk.log"; exit 1; }
mkdir -p exp/bin/$name && cp build/stencils/adi/bench_adi build/tests/adi/test_adi_gpu exp/bin/$name/ 2>/dev/null || { find build -name bench_adi -o -name test_adi_gpu -type f; exit 1; }
echo built $name
