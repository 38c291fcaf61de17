#!/usr/bin/env bash
# On the host (spec/bench/host-bundle.sh says what travels): unpacks node, fio and the runtime
# dependencies, prints what the host is, then runs the runtime bench's lookup rows
# HOST_LOOKUP_RUNS times (3), in each order of HOST_LOOKUP_ORDERS (default "interleaved"; "phases
# interleaved" alternates the two, as runtime-lookup-order-h100-host.txt), one full runtime bench and
# one io bench, each into $OUT. HOST_BENCHES (default "lookup runtime io") picks which; "seqwrite"
# adds spec/bench/io/seq-write-ab.ts (does the data written move the disk's sequential write rate).
# HOST_LOOKUP_SERVE lists `orbitkv serve` options for the lookup rows' Manager, variants apart by
# '|' (default one variant, none; "|--busy-poll-us 2000" runs each order without, then with it); a
# variant "node:FLAGS" starts that Manager with node FLAGS instead (ORBITKV_BENCH_MANAGER_FLAGS), and
# "env:NAME=VALUE ..." runs that bench with those variables (e.g. "|env:ORBITKV_BENCH_RELEASE=next|env:ORBITKV_BENCH_PACE=sleep").
set -uo pipefail
cd "$(dirname "$0")/../.."
b=$PWD/.gpu-bundle
out=${OUT:-$PWD/host-out}
mkdir -p "$out" /tmp/nodebin
xz -dc "$b/node.xz" > /tmp/nodebin/node && xz -dc "$b/fio.xz" > /tmp/nodebin/fio && chmod +x /tmp/nodebin/node /tmp/nodebin/fio
export PATH=/tmp/nodebin:$PATH
[[ -d node_modules ]] || tar xJf "$b/rt.tar.xz"
export ORBITKV_NATIVE_ADDON=$PWD/native/build/Release/orbitkv_native.node
export ORBITKV_BENCH_DIR=${ORBITKV_BENCH_DIR:-/tmp/okv-bench} ORBITKV_BENCH_NO_BUILD=1
{
  date -u; uname -a; nproc; uptime; node --version; fio --version; python3 --version
  echo "cpuidle: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
  echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
  grep -m1 'model name' /proc/cpuinfo; df -h "$(dirname "$ORBITKV_BENCH_DIR")"; findmnt -T "$(dirname "$ORBITKV_BENCH_DIR")"
  lsblk 2>/dev/null | head -20
} > "$out/host-env.txt" 2>&1
cat "$out/host-env.txt"
benches=" ${HOST_BENCHES:-lookup runtime io} "
if [[ $benches == *" lookup "* ]]; then
  for i in $(seq 1 "${HOST_LOOKUP_RUNS:-3}"); do
    for order in ${HOST_LOOKUP_ORDERS:-interleaved}; do
      IFS='|' read -r -a serves <<< "${HOST_LOOKUP_SERVE:-}"
      [[ ${#serves[@]} -eq 0 ]] && serves=("")
      for serve in "${serves[@]}"; do
        echo "== run $i, order $order, serve '$serve', $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/runtime-lookup.txt"
        flags=""; vars=()
        if [[ $serve == node:* ]]; then flags=${serve#node:}; serve=""; fi
        if [[ $serve == env:* ]]; then read -r -a vars <<< "${serve#env:}"; serve=""; fi
        env "${vars[@]}" ORBITKV_BENCH_MANAGER_FLAGS="$flags" ORBITKV_BENCH_SERVE_ARGS="$serve" ORBITKV_BENCH_LOOKUP_ORDER="$order" ORBITKV_BENCH_RUNTIME_ROWS=lookup node "$b/bench/runtime.bench.mjs" 2>&1 | tee -a "$out/runtime-lookup.txt"
      done
    done
  done
fi
[[ $benches == *" runtime "* ]] && node "$b/bench/runtime.bench.mjs" 2>&1 | tee "$out/runtime.txt"
[[ $benches == *" io "* ]] && UV_THREADPOOL_SIZE=64 node "$b/bench/io.bench.mjs" 2>&1 | tee "$out/io.txt"
[[ $benches == *" seqwrite "* ]] && node "$b/bench/seq-write-ab.mjs" 2>&1 | tee "$out/seq-write-ab.txt"
uptime | tee -a "$out/host-env.txt"
