#!/usr/bin/env bash
# What follows a slow lookup on a host: the lookup rows at 10,000/s, three times, each timed phase's
# latencies written in order (ORBITKV_BENCH_LOOKUP_TRACE) and read by spec/bench/lookup-trace.py (the
# mean of the 1st..8th lookup after each slow one, and how much of the tail lies near one). Send the tree
# as for host-run.sh (dist/, the native addon and .gpu-bundle carried, after spec/bench/host-bundle.sh),
# then on the host: OUT=$OUT bash spec/bench/host-lookup-trace.sh
set -u
cd "$(dirname "$0")/../.."
b=$PWD/.gpu-bundle; out=${OUT:-/tmp/out}; mkdir -p "$out"
mkdir -p /tmp/nodebin; [[ -x /tmp/nodebin/node ]] || { xz -dc "$b/node.xz" > /tmp/nodebin/node; chmod +x /tmp/nodebin/node; }
export PATH=/tmp/nodebin:$PATH
[[ -d node_modules ]] || tar xJf "$b/rt.tar.xz"
export ORBITKV_NATIVE_ADDON=$PWD/native/build/Release/orbitkv_native.node ORBITKV_BENCH_DIR=/tmp/okv-bench ORBITKV_BENCH_NO_BUILD=1 ORBITKV_BENCH_LOOKUP_RATES=10000 ORBITKV_BENCH_RUNTIME_ROWS=lookup
for r in 1 2 3; do
  echo "== round $r" 
  ORBITKV_BENCH_LOOKUP_TRACE=$out/tr$r node $b/bench/runtime.bench.mjs 2>&1 | grep "^python lookup p99" | sed -E 's/ +/ /g' | cut -c1-150
  python3 spec/bench/lookup-trace.py $out/tr$r.lookup.10000 $out/tr$r.echo.10000 $out/tr$r.echobody.10000
done
