#!/usr/bin/env bash
# Bundles spec/gpu/gpu-checks.ts (and the native TS it imports), the doctor and the ledger bench
# into one ESM file each for the GPU host.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .gpu-bundle
node_modules/.bin/esbuild spec/gpu/gpu-checks.ts --bundle --platform=node --format=esm --target=node20 --outfile=.gpu-bundle/gpu-checks.mjs --log-level=warning
node_modules/.bin/esbuild spec/gpu/vmm-peer.ts --bundle --platform=node --format=esm --target=node20 --outfile=.gpu-bundle/vmm-peer.mjs --log-level=warning
node_modules/.bin/esbuild spec/gpu/doctor.ts --bundle --platform=node --format=esm --target=node20 --outfile=.gpu-bundle/doctor.mjs --log-level=warning
# yaml's CommonJS build requires node builtins: give the ESM bundle a require.
node_modules/.bin/esbuild spec/bench/ledger.bench.ts --bundle --platform=node --format=esm --target=node20 --outfile=.gpu-bundle/ledger-bench.mjs --log-level=warning \
  --banner:js="import { createRequire as __okvRequire } from 'node:module'; const require = __okvRequire(import.meta.url);"
# What a run from another checkout needs besides these (see run.sh: ORBITKV_GPU_BUNDLE).
cp native/build/Release/orbitkv_native.node spec/gpu/gpu_run.py spec/gpu/run.sh .gpu-bundle/
