#!/usr/bin/env bash
# One GPU-host run: unpack the carried Node, run the native checks and benchmarks against
# PyTorch, leave results in $OUT (or ./gpu-out). Prerequisites, built on the dev machine:
#   ../shared/gpu-host/pack-node.sh            # .gpu-bundle/node.xz
#   npm run install                            # native/build/Release/orbitkv_native.node
#   spec/gpu/bundle.sh                         # .gpu-bundle/*.mjs (and a copy of the addon)
# ORBITKV_GPU_BUNDLE names another folder holding all of that (node.xz, the .mjs bundles,
# orbitkv_native.node, gpu_run.py), for a run from a checkout that is not this one.
set -uo pipefail
cd "$(dirname "$0")/../.."
bundle=${ORBITKV_GPU_BUNDLE:-$PWD/.gpu-bundle}
export ORBITKV_GPU_BUNDLE=$bundle
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out" /tmp/nodebin
xz -dc "$bundle/node.xz" > /tmp/nodebin/node && chmod +x /tmp/nodebin/node
export PATH=/tmp/nodebin:$PATH
if [[ -f "$bundle/orbitkv_native.node" ]]; then
  export ORBITKV_NATIVE_ADDON=$bundle/orbitkv_native.node
else
  export ORBITKV_NATIVE_ADDON=$PWD/native/build/Release/orbitkv_native.node
fi
runner=spec/gpu/gpu_run.py
[[ -f "$bundle/gpu_run.py" ]] && runner=$bundle/gpu_run.py
{
  node --version; uname -a; grep PRETTY /etc/os-release
  nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv
  grep -nE "CU_DEVICE_ATTRIBUTE_(CAN_USE_STREAM_MEM_OPS_V1|COMPUTE_CAPABILITY_MAJOR|UNIFIED_ADDRESSING|MULTIPROCESSOR_COUNT) " /usr/local/cuda/include/cuda.h
  grep -nE "define cu(StreamWaitValue32|MemcpyHtoDAsync|StreamBeginCapture|IpcOpenMemHandle|MemHostRegister|LaunchHostFunc) " /usr/local/cuda/include/cuda.h
} > "$out/gpu-env.txt" 2>&1
node "$bundle/pkg/doctor/doctor.mjs" --data /tmp 2>&1 | tee "$out/gpu-doctor.txt"
node "$bundle/pkg/doctor/doctor.mjs" --data /tmp --format json > "$out/gpu-doctor.json" 2>> "$out/gpu-doctor.txt"
PYTHONUNBUFFERED=1 python3 "$runner" "$out" 2>&1 | tee "$out/gpu-log.txt"
