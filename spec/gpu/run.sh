#!/usr/bin/env bash
# One GPU-host run: unpack the carried Node, run the native checks and benchmarks against
# PyTorch, leave results in $OUT (or ./gpu-out). Prerequisites, built on the dev machine:
#   ../shared/gpu-host/pack-node.sh            # .gpu-bundle/node.xz
#   npm run install                            # native/build/Release/orbitkv_native.node
#   spec/gpu/bundle.sh                         # .gpu-bundle/gpu-checks.mjs
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out" /tmp/nodebin
xz -dc .gpu-bundle/node.xz > /tmp/nodebin/node && chmod +x /tmp/nodebin/node
export PATH=/tmp/nodebin:$PATH
export ORBITKV_NATIVE_ADDON=$PWD/native/build/Release/orbitkv_native.node
{
  node --version; uname -a; grep PRETTY /etc/os-release
  nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv
  grep -nE "CU_DEVICE_ATTRIBUTE_(CAN_USE_STREAM_MEM_OPS_V1|COMPUTE_CAPABILITY_MAJOR|UNIFIED_ADDRESSING|MULTIPROCESSOR_COUNT) " /usr/local/cuda/include/cuda.h
  grep -nE -A3 "cuMemcpyBatchAsync" /usr/local/cuda/include/cuda.h | head -40
  grep -nE "define cu(StreamWaitValue32|MemcpyHtoDAsync|StreamBeginCapture|IpcOpenMemHandle|MemHostRegister) " /usr/local/cuda/include/cuda.h
} > "$out/gpu-env.txt" 2>&1
node .gpu-bundle/doctor.mjs --data /tmp | tee "$out/gpu-doctor.txt"
node .gpu-bundle/doctor.mjs --data /tmp --format json > "$out/gpu-doctor.json"
PYTHONUNBUFFERED=1 python3 spec/gpu/gpu_run.py "$out" 2>&1 | tee "$out/gpu-log.txt"
