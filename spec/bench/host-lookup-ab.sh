#!/usr/bin/env bash
# The lookup p99 at 10,000/s on a host, an earlier commit's Manager against this tree's, alternated
# in 3 rounds, each Manager under --trace-gc-nvp and its collector summed (what
# spec/bench/results/runtime-lookup-ab-h100-host.txt records). Send the tree as for host-run.sh
# (dist/, the native addon and .gpu-bundle carried) after building, besides spec/bench/host-bundle.sh:
#   rev=ec72344; rm -rf /tmp/oldtree && mkdir /tmp/oldtree && git archive $rev | tar x -C /tmp/oldtree
#   ln -s $PWD/node_modules /tmp/oldtree/node_modules && (cd /tmp/oldtree && npx tsc -p tsconfig.build.json)
#   mkdir -p /tmp/oldtree/spec/bench && cp .gpu-bundle/bench/runtime.bench.mjs /tmp/oldtree/spec/bench/
#   tar cJf .gpu-bundle/old.tar.xz -C /tmp/oldtree --exclude=./node_modules --exclude=./engine .
# (the same bench file runs against both Managers: only the Manager differs). Then, on the host:
#   bash spec/bench/host-lookup-ab.sh
# AB_VARIANTS lists name|bench-folder|extra node flags (comma-separated)|extra serve arguments
# (comma-separated, optional) per variant, the variants space-separated (default: old, new; e.g. add
# "new-noparscav|$PWD/.gpu-bundle/bench|--no-parallel-scavenge" or "worker|$PWD/.gpu-bundle/bench||--ticket-actors,worker");
# RATES the lookup rates (default 10000). old.tar.xz is needed only by a variant that runs /tmp/old.
set -uo pipefail
cd "$(dirname "$0")/../.."
b=$PWD/.gpu-bundle
out=${OUT:-/tmp/out}; mkdir -p "$out"
mkdir -p /tmp/nodebin
[[ -x /tmp/nodebin/node ]] || { xz -dc "$b/node.xz" > /tmp/nodebin/node; chmod +x /tmp/nodebin/node; }
export PATH=/tmp/nodebin:$PATH
[[ -d node_modules ]] || tar xJf "$b/rt.tar.xz"
[[ -f "$b/old.tar.xz" ]] && mkdir -p /tmp/old && tar xJf "$b/old.tar.xz" -C /tmp/old && ln -sfn "$PWD/node_modules" /tmp/old/node_modules
export ORBITKV_NATIVE_ADDON=$PWD/native/build/Release/orbitkv_native.node ORBITKV_BENCH_DIR=/tmp/okv-bench ORBITKV_BENCH_NO_BUILD=1 ORBITKV_BENCH_LOOKUP_RATES=${RATES:-10000} ORBITKV_BENCH_RUNTIME_ROWS=lookup
{ date -u; nproc; uptime; grep -m1 'model name' /proc/cpuinfo; } | tee "$out/env.txt"
# The main isolate's collections (the first to collect, as node starts) from GC_FROM_MS (default
# 3000: past the Manager's start-up, whose module loading collects too) on, the lookup blocks and
# their echoes; a ticket worker's collections pause no reply, and are only counted.
gcsum() { grep "gc=" "$1" | awk -v from="${GC_FROM_MS:-3000}" 'match($0, /^\[[0-9]+:0x[0-9a-f]+\]/) { iso = substr($0, RSTART, RLENGTH); if (first == "") first = iso; if (iso != first) { others++; next } } { t = $2 + 0; if (t < from) next; for(i=1;i<=NF;i++){split($i,a,"="); v[a[1]]=a[2]} if (v["gc"]=="s") {n++; ps+=v["pause"]; if (v["pause"]>mx) mx=v["pause"]; p+=v["promoted"]; sv+=v["new_space_survived"]} if (v["gc"]=="mc") {m++; mp+=v["pause"]}} END{printf "gc from %d ms: scavenges %d avg %.3f ms max %.2f, survived/scav %d B, promoted/scav %d B; mark-compacts %d avg pause %.2f ms\n", from, n, (n?ps/n:0), mx, (n?sv/n:0), (n?p/n:0), m, (m?mp/m:0); if (others) printf "  (other isolates: %d collections)\n", others}'; }
read -r -a variants <<< "${AB_VARIANTS:-old|/tmp/old/spec/bench| new|$b/bench|}"
for r in 1 2 3; do
  for v in "${variants[@]}"; do
    IFS='|' read -r name tree flags serve <<< "$v"
    rm -f /tmp/gc.txt
    echo "== $name round $r" | tee -a "$out/ab.txt"
    ORBITKV_BENCH_SERVE_ARGS="${serve//,/ }" ORBITKV_BENCH_MANAGER_FLAGS="${flags//,/ } --trace-gc --trace-gc-nvp" ORBITKV_BENCH_MANAGER_STDOUT=/tmp/gc.txt node "$tree/runtime.bench.mjs" 2>&1 | grep -E "^(python lookup p|Manager CPU)" | sed -E 's/ +/ /g; s/ \(achieved [^)]*\)//; s/vs an echo of the lookup request.s size, encoded per call/vs echo of its size/' | cut -c1-160 | tee -a "$out/ab.txt"
    gcsum /tmp/gc.txt | tee -a "$out/ab.txt"
  done
done
uptime | tee -a "$out/env.txt"
