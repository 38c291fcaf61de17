#!/usr/bin/env bash
# Bundles the verify bench and its scan worker for a host without node_modules (the GPU host):
# .gpu-bundle/verify/bench/verify-bench.mjs, worker.mjs beside it (the pool starts ./worker.mjs next to
# itself), both grammars' wasm, and a node_modules stub that resolves tree-sitter-python's wasm.
set -euo pipefail
cd "$(dirname "$0")/../.."
# two levels below the bundle root, so the registry finds ../../contracts/schema as in the repository
out=.gpu-bundle/verify/bench
mkdir -p "$out/node_modules/tree-sitter-python" .gpu-bundle/contracts
cp -r contracts/schema .gpu-bundle/contracts/
banner="import { createRequire as __okvRequire } from 'node:module'; const require = __okvRequire(import.meta.url);"
node_modules/.bin/esbuild spec/bench/verify.bench.ts --bundle --platform=node --format=esm --target=node20 --outfile="$out/verify-bench.mjs" --log-level=warning --banner:js="$banner"
node_modules/.bin/esbuild engine/verify/worker.ts --bundle --platform=node --format=esm --target=node20 --outfile="$out/worker.mjs" --log-level=warning --banner:js="$banner"
cp node_modules/web-tree-sitter/web-tree-sitter.wasm "$out/"
cp node_modules/tree-sitter-python/tree-sitter-python.wasm node_modules/tree-sitter-python/package.json "$out/node_modules/tree-sitter-python/"
# the Node binary for a host without one
[[ -s .gpu-bundle/node.xz ]] || xz -T2 -6 -c "$(command -v node)" > .gpu-bundle/node.xz
ls -la "$out" .gpu-bundle
