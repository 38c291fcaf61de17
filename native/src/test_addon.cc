// orbitkv_native_test: entry points only specs load (never the production addon): a seccomp
// hook that refuses io_uring_setup the way container profiles do, and plain owned memory that
// releases the way pinned CUDA host memory does (owned_memory.h), for specs on machines
// without a GPU.
#include <napi.h>
#include <cstdlib>
#include <cstring>
#include "args.h"
#include "owned_memory.h"
#include "sandbox.h"

namespace orbitkv {

static void FreePlain(void* data) { std::free(data); }
static OwnedMemoryKind plainKind{"ownedAlloc", FreePlain};

// ownedAlloc(size) -> a zeroed, page-aligned Buffer owned like pinned host memory.
static Napi::Value OwnedAlloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto size = static_cast<size_t>(ArgInt(info, 0, "size", 1, INT64_C(1) << 32));
  size_t rounded = (size + 4095) / 4096 * 4096;
  void* p = std::aligned_alloc(4096, rounded);
  if (p == nullptr) throw Napi::Error::New(env, "ownedAlloc: out of memory");
  std::memset(p, 0, rounded);
  return NewOwnedBuffer(env, p, size, &plainKind);
}

// ownedRelease(buffer) -> 'freed' | 'deferred' | 'detached' (as hostRelease).
static Napi::Value OwnedRelease(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  switch (ReleaseOwned(env, info.Length() > 0 ? info[0] : env.Undefined(), &plainKind)) {
    case ReleaseOutcome::Freed:
      return Napi::String::New(env, "freed");
    case ReleaseOutcome::Deferred:
      return Napi::String::New(env, "deferred");
    case ReleaseOutcome::AlreadyDetached:
      break;
  }
  return Napi::String::New(env, "detached");
}

static Napi::Value OwnedLive(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(plainKind.live.load()));
}

}  // namespace orbitkv

static Napi::Object InitModule(Napi::Env env, Napi::Object exports) {
  orbitkv::InitSandbox(env, exports);
  exports.Set("ownedAlloc", Napi::Function::New(env, orbitkv::OwnedAlloc, "ownedAlloc"));
  exports.Set("ownedRelease", Napi::Function::New(env, orbitkv::OwnedRelease, "ownedRelease"));
  exports.Set("ownedLive", Napi::Function::New(env, orbitkv::OwnedLive, "ownedLive"));
  return exports;
}

NODE_API_MODULE(orbitkv_native_test, InitModule)
