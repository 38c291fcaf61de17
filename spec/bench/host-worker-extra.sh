#!/usr/bin/env bash
# Run on a host after spec/bench/host-lookup-ab.sh (node unpacked, node_modules present): the soak with the ticket worker and
# 4 MiB main semi-spaces, and a CPU profile of that Manager at 10,000 lookups/s.
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH=/tmp/nodebin:$PATH
out=${OUT:-/tmp/out}
export ORBITKV_NATIVE_ADDON=$PWD/native/build/Release/orbitkv_native.node ORBITKV_BENCH_DIR=/tmp/okv-bench ORBITKV_BENCH_NO_BUILD=1
F="--min-semi-space-size=4 --max-semi-space-size=4"
echo "== soak worker4" | tee -a "$out/extra.txt"
ORBITKV_BENCH_MANAGER_FLAGS="$F" ORBITKV_BENCH_RUNTIME_ROWS=soak ORBITKV_BENCH_SOAK_S=20 ORBITKV_BENCH_SERVE_ARGS="--ticket-actors worker" node .gpu-bundle/bench/runtime.bench.mjs 2>&1 | grep -E "^soak" | cut -c1-200 | tee -a "$out/extra.txt"
mkdir -p "$out/prof"
echo "== profile worker4" | tee -a "$out/extra.txt"
ORBITKV_BENCH_MANAGER_FLAGS="$F" ORBITKV_BENCH_LOOKUP_RATES=10000 ORBITKV_BENCH_LOOKUP_S=2 ORBITKV_BENCH_RUNTIME_ROWS=lookup ORBITKV_BENCH_PROFILE_DIR=$out/prof ORBITKV_BENCH_SERVE_ARGS="--ticket-actors worker" node .gpu-bundle/bench/runtime.bench.mjs 2>&1 | grep -E "^(python lookup p|Manager CPU)" | tee -a "$out/extra.txt"
