// Native memory exposed to JS as one Buffer and returned exactly once: by Release() at once when
// nothing else holds its backing store, else by the last holder. An in-flight I/O op holds the
// store (IoOp::pins), so memory freed while the kernel or a pool thread still writes into it is
// returned only after that op is reaped: Node runs the Buffer's finalizer on the JS thread once
// the store is gone. Shared by pinned CUDA host memory and the test addon's plain allocations.
#pragma once
#include <napi.h>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace orbitkv {

/** One kind of owned memory: how its blocks are returned, and how many are still out. */
struct OwnedMemoryKind {
  const char* name;              // for "not a buffer from ..." errors
  void (*free)(void* data);      // returns a block (cuMemFreeHost, free)
  std::atomic<int64_t> live{0};  // blocks not yet returned
};

/** A Buffer over `data` (already allocated by the kind's allocator), owned from now on. */
Napi::Value NewOwnedBuffer(Napi::Env env, void* data, size_t size, OwnedMemoryKind* kind);

enum class ReleaseOutcome { AlreadyDetached, Freed, Deferred };

/**
 * Detaches the view's buffer (no JS view can reach the memory again) and returns the memory now,
 * or, while something else holds the backing store (an op in flight, a ring registration), when
 * that last holder lets go. TypeError for a buffer of another kind.
 */
ReleaseOutcome ReleaseOwned(Napi::Env env, Napi::Value view, OwnedMemoryKind* kind);

}  // namespace orbitkv
