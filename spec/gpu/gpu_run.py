"""GPU host run: PyTorch is both the peer (copy_(non_blocking=True) from pinned memory) and the
engine stand-in whose tensor the native module opens through CUDA IPC. Runs gpu-checks.mjs
(the bundled native checks and benchmarks) while the tensor is alive, then writes one results
document with ratios (ours / PyTorch, > 1 means ours is faster).

    python3 spec/gpu/gpu_run.py OUT_DIR
"""
import hashlib
import json
import os
import subprocess
import sys
import time

import torch

out = sys.argv[1]
KiB, MiB, GiB = 1024, 1024 * 1024, 1024 * 1024 * 1024
bundle = os.path.join(os.environ.get("ORBITKV_GPU_BUNDLE", os.path.join(os.path.dirname(__file__), "..", "..", ".gpu-bundle")), "gpu-checks.mjs")


def torch_bandwidth(kind, size, host, dev, stream):
    iters = max(3, min(200, round(256 * MiB / size)))
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    h, d = host[:size], dev[:size]
    best = 0.0
    with torch.cuda.stream(stream):
        (d.copy_(h, non_blocking=True) if kind == "h2d" else h.copy_(d, non_blocking=True))
        stream.synchronize()
        for _ in range(3):
            start.record(stream)
            for _ in range(iters):
                if kind == "h2d":
                    d.copy_(h, non_blocking=True)
                else:
                    h.copy_(d, non_blocking=True)
            end.record(stream)
            end.synchronize()
            best = max(best, size * iters / (start.elapsed_time(end) * 1e6))
    return best


def torch_scattered(blocks, host, dev, stream):
    block = 64 * KiB
    slots = host.numel() // block
    src = torch.randperm(slots)[:blocks].tolist()
    dst = torch.randperm(slots)[:blocks].tolist()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    best = 0.0
    with torch.cuda.stream(stream):
        for rep in range(4):
            start.record(stream)
            for s, d in zip(src, dst):
                dev[d * block:(d + 1) * block].copy_(host[s * block:(s + 1) * block], non_blocking=True)
            end.record(stream)
            end.synchronize()
            if rep > 0:
                best = max(best, blocks * block / (start.elapsed_time(end) * 1e6))
    return best


def main():
    torch.cuda.init()
    results = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0)}

    # The engine stand-in: a tensor in PyTorch's caching allocator, shared through CUDA IPC.
    ipc_tensor = (torch.arange(3 * MiB + 4 * KiB, dtype=torch.int64, device="cuda") * 2654435761 % 251).to(torch.uint8)
    view = ipc_tensor[4 * KiB:]  # a view at an offset, as a KV block would be
    storage = view.untyped_storage()
    shared = storage._share_cuda_()
    raw, offset_bytes = shared[1], shared[3]
    # PyTorch 2.11 sends a version byte and a kind byte before the 64-byte cudaIpcMemHandle_t
    # for cudaMalloc segments (expandable segments would need the VMM fd path instead).
    handle = raw[-64:]
    results["ipcHandle"] = {"rawLength": len(raw), "prefix": list(raw[:-64])}
    ipc = {
        "handle": handle.hex(),
        "offset": offset_bytes + view.storage_offset() * view.element_size(),
        "size": view.numel() * view.element_size(),
        "sha256": hashlib.sha256(view.cpu().numpy().tobytes()).hexdigest(),
    }
    torch.cuda.synchronize()
    ipc_path = os.path.join("/tmp", "orbitkv-ipc.json")
    with open(ipc_path, "w") as f:
        json.dump(ipc, f)

    # Ours first (the tensor stays alive in this process meanwhile), then the peer on the same GPU.
    t0 = time.time()
    proc = subprocess.run(["node", "--expose-gc", bundle, "--ipc", ipc_path], capture_output=True, text=True, timeout=480)
    results["nodeSeconds"] = round(time.time() - t0, 1)
    if proc.returncode != 0:
        print(proc.stderr[-4000:], file=sys.stderr)
    try:
        ours = json.loads(proc.stdout)
    except json.JSONDecodeError:
        ours = {"error": "no JSON from gpu-checks", "stdout": proc.stdout[-2000:], "stderr": proc.stderr[-4000:]}
    results["native"] = ours

    host = torch.empty(GiB, dtype=torch.uint8, pin_memory=True)
    host.random_(0, 255)
    dev = torch.empty(GiB, dtype=torch.uint8, device="cuda")
    stream = torch.cuda.Stream()
    peers = {}
    for entry in ours.get("copies", []):
        key = (entry["kind"], entry["size"])
        peers[key] = torch_bandwidth(entry["kind"], entry["size"], host, dev, stream)
        entry["torchGBps"] = peers[key]
        entry["ratio"] = entry["gbps"] / peers[key]
    for entry in ours.get("scattered", []):
        entry["torchPerBlockGBps"] = torch_scattered(entry["blocks"], host, dev, stream)
        entry["ratio"] = entry["gatherGBps"] / entry["torchPerBlockGBps"]
    results["targets"] = {
        "copy ratio >= 0.95 from 1 MiB": all(e["ratio"] >= 0.95 for e in ours.get("copies", []) if e["size"] >= MiB),
        ">= 50 GB/s from 16 MiB": all(e["gbps"] >= 50 for e in ours.get("copies", []) if e["size"] >= 16 * MiB),
        "scattered 64 KiB >= 40 GB/s": all(e["gatherGBps"] >= 40 for e in ours.get("scattered", [])),
        "checks pass": bool(ours.get("checks")) and all(c["ok"] for c in ours["checks"].values()),
    }
    del ipc_tensor

    with open(os.path.join(out, "gpu-results.json"), "w") as f:
        json.dump(results, f, indent=2)
    print(f"{'kind':5} {'size':>10} {'ours GB/s':>10} {'torch GB/s':>10} {'ratio':>6}")
    for e in ours.get("copies", []):
        print(f"{e['kind']:5} {e['size']:>10} {e['gbps']:>10.2f} {e['torchGBps']:>10.2f} {e['ratio']:>6.3f}")
    for e in ours.get("scattered", []):
        print(f"scattered {e['blocks']} x 64 KiB: gather {e['gatherGBps']:.2f} GB/s (by threads {e['gatherByThreads']}), per-block memcpy {e['memcpyPerBlockGBps']:.2f}, torch per-block {e['torchPerBlockGBps']:.2f}")
    for name, c in ours.get("checks", {}).items():
        print(("PASS " if c["ok"] else "FAIL ") + name + ": " + c["detail"][:600])
    print(json.dumps(results["targets"]))


main()
