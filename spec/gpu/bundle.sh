#!/usr/bin/env bash
# Bundles spec/gpu/gpu-checks.ts (and the native TS it imports) into one ESM file for the GPU host.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .gpu-bundle
node_modules/.bin/esbuild spec/gpu/gpu-checks.ts --bundle --platform=node --format=esm --target=node20 --outfile=.gpu-bundle/gpu-checks.mjs --log-level=warning
node_modules/.bin/esbuild spec/gpu/doctor.ts --bundle --platform=node --format=esm --target=node20 --outfile=.gpu-bundle/doctor.mjs --log-level=warning
