#include "owned_memory.h"
#include <mutex>
#include <string>
#include <unordered_map>
#include "backing_store.h"

namespace orbitkv {

namespace {

struct OwnedBlock {
  void* data;
  OwnedMemoryKind* kind;
  bool returned;
};

std::mutex blocksLock;
std::unordered_map<void*, OwnedBlock*> blocksByAddress;

void Return(OwnedBlock* block) {
  block->returned = true;
  block->kind->free(block->data);
  block->kind->live.fetch_sub(1);
}

// The Buffer's finalizer: Node calls it on the JS thread once the backing store is freed (the
// last view collected or detached, and every native holder gone).
void FinalizeOwned(Napi::Env, uint8_t*, OwnedBlock* block) {
  {
    // Only this block's entry: once returned, the allocator may hand the same address to a newer
    // block, whose entry a late finalizer of the old one must not drop.
    std::lock_guard<std::mutex> hold(blocksLock);
    auto it = blocksByAddress.find(block->data);
    if (it != blocksByAddress.end() && it->second == block) blocksByAddress.erase(it);
  }
  if (!block->returned) Return(block);
  delete block;
}

}  // namespace

Napi::Value NewOwnedBuffer(Napi::Env env, void* data, size_t size, OwnedMemoryKind* kind) {
  auto* block = new OwnedBlock{data, kind, false};
  kind->live.fetch_add(1);
  {
    std::lock_guard<std::mutex> hold(blocksLock);
    blocksByAddress[data] = block;
  }
  return Napi::Buffer<uint8_t>::New(env, static_cast<uint8_t*>(data), size, FinalizeOwned, block);
}

ReleaseOutcome ReleaseOwned(Napi::Env env, Napi::Value value, OwnedMemoryKind* kind) {
  std::string notOurs = std::string("not a buffer from ") + kind->name;
  if (!value.IsTypedArray()) throw Napi::TypeError::New(env, notOurs);
  Napi::ArrayBuffer buffer = value.As<Napi::TypedArray>().ArrayBuffer();
  bool detached = false;
  napi_is_detached_arraybuffer(env, buffer, &detached);
  if (detached) return ReleaseOutcome::AlreadyDetached;
  void* data = buffer.Data();
  OwnedBlock* block = nullptr;
  {
    std::lock_guard<std::mutex> hold(blocksLock);
    auto it = blocksByAddress.find(data);
    if (it != blocksByAddress.end() && it->second->kind == kind) block = it->second;
  }
  if (block == nullptr) throw Napi::TypeError::New(env, notOurs);
  // Holders of the store: the ArrayBuffer itself, this reference, and anyone else (IoOp pins,
  // registered ring buffers). Every holder lives on this thread, so the count is exact here.
  bool othersHold = BackingStoreOf(buffer).use_count() > 2;
  buffer.Detach();
  if (othersHold) return ReleaseOutcome::Deferred;  // FinalizeOwned returns it after the last
  Return(block);  // the finalizer, later, finds it returned
  return ReleaseOutcome::Freed;
}

}  // namespace orbitkv
