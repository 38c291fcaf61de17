#!/usr/bin/env bash
# Bundles spec/gpu/gpu-checks.ts (and the native TS it imports), the doctor and the ledger bench
# into one ESM file each for the GPU host.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .gpu-bundle
node_modules/.bin/esbuild spec/gpu/gpu-checks.ts --bundle --platform=node --format=esm --target=node20 --outfile=.gpu-bundle/gpu-checks.mjs --log-level=warning
node_modules/.bin/esbuild spec/gpu/vmm-peer.ts --bundle --platform=node --format=esm --target=node20 --outfile=.gpu-bundle/vmm-peer.mjs --log-level=warning
# yaml's and ts-morph's CommonJS builds require node builtins: give those ESM bundles a require.
banner="import { createRequire as __okvRequire } from 'node:module'; import { fileURLToPath as __okvPath } from 'node:url'; const require = __okvRequire(import.meta.url); const __filename = __okvPath(import.meta.url);"
node_modules/.bin/esbuild spec/gpu/doctor.ts --bundle --platform=node --format=esm --target=node20 --outfile=.gpu-bundle/pkg/doctor/doctor.mjs --log-level=warning \
  --banner:js="$banner"
node_modules/.bin/esbuild spec/bench/ledger.bench.ts --bundle --platform=node --format=esm --target=node20 --outfile=.gpu-bundle/ledger-bench.mjs --log-level=warning \
  --banner:js="$banner"
# The doctor finds the shipped schemas and the embedded registry two folders above its own file
# (as engine/registry/schema.ts does from engine/registry/): give it a copy of contracts/ there.
rm -rf .gpu-bundle/contracts && cp -r contracts .gpu-bundle/contracts
# The schema loader requires ajv at run time (createRequire, which esbuild leaves alone): carry it
# and its dependencies where that require looks from pkg/doctor/.
rm -rf .gpu-bundle/node_modules && mkdir -p .gpu-bundle/node_modules
for m in ajv fast-deep-equal fast-uri json-schema-traverse require-from-string; do cp -r "node_modules/$m" .gpu-bundle/node_modules/; done
# What a run from another checkout needs besides these (see run.sh: ORBITKV_GPU_BUNDLE).
cp native/build/Release/orbitkv_native.node spec/gpu/gpu_run.py spec/gpu/run.sh .gpu-bundle/
