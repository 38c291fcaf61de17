#!/usr/bin/env bash
# Bundles the runtime bench (`npm run bench -- runtime`) and the io bench (`npm run bench:io`) for
# a host without Node.js, node_modules or fio (the GPU host, 16 cores), so they can be measured on
# a machine other than the 2-vCPU development VM. Writes, under .gpu-bundle/ (kept out of git):
#   bench/runtime.bench.mjs, bench/io.bench.mjs  the benches (and bench/seq-write-ab.mjs), one ESM file each; in bench/, so
#                                                that their REPO (two folders up) is the repository
#   rt.tar.xz      the Manager's runtime dependencies (`npm ls --omit=dev`), unpacked there as
#                  node_modules/ beside the carried dist/ (bin/orbitkv.js runs as users run it)
#   fio.xz         a statically linked fio, from FIO_STATIC (default /tmp/fio-static): the peer.
#                  Build it from axboe/fio at the tag of this machine's fio (3.33 here):
#                  ./configure --build-static --disable-native && make && strip -o /tmp/fio-static fio
#   node.xz        this machine's node (../shared/gpu-host/pack-node.sh writes it)
# Then send the tree with dist/, native/build/Release/orbitkv_native.node and .gpu-bundle carried,
# and run spec/bench/host-run.sh there.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .gpu-bundle/bench
banner="import { createRequire as __okvRequire } from 'node:module'; const require = __okvRequire(import.meta.url);"
for b in runtime.bench io/io.bench io/seq-write-ab; do
  node_modules/.bin/esbuild "spec/bench/$b.ts" --bundle --platform=node --format=esm --target=node20 \
    --outfile=".gpu-bundle/bench/$(basename "$b").mjs" --packages=external --log-level=warning --banner:js="$banner"
done
npx tsc -p tsconfig.build.json
npm ls --omit=dev --all --parseable 2>/dev/null | sed "s|^$PWD/||" | grep '^node_modules/' | grep -v '^node_modules/.*/node_modules/' \
  | tar cf - --files-from=- | xz -T2 -6 > .gpu-bundle/rt.tar.xz
fio_bin=${FIO_STATIC:-/tmp/fio-static}
if ! file "$fio_bin" | grep -q 'statically linked'; then
  echo "host-bundle: $fio_bin is not a statically linked fio (see this script's header for how to build one)" >&2
  exit 2
fi
xz -T2 -6 -c "$fio_bin" > .gpu-bundle/fio.xz
[[ -s .gpu-bundle/node.xz ]] || xz -T2 -6 -c "$(command -v node)" > .gpu-bundle/node.xz
ls -la .gpu-bundle .gpu-bundle/bench
