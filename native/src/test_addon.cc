// orbitkv_native_test: entry points only specs load (never the production addon): a seccomp
// hook that refuses io_uring_setup the way container profiles do, and plain owned memory that
// releases the way pinned CUDA host memory does (owned_memory.h), for specs on machines
// without a GPU; and the io_uring ring's table of ops in flight (io/inflight_table.h) driven
// directly, so a spec can place ids where it wants them.
#include <napi.h>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>
#include "args.h"
#include "io/inflight_table.h"
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

// inflightTableRun(script: Uint32Array of (op, id) pairs) -> Uint32Array, one entry per pair:
// op 0 inserts id (1, or 0 when it is already there), 1 erases it (1, or 0 when absent),
// 2 finds it (1 or 0), 3 the table's size. Ops are records of this call only.
static Napi::Value InflightTableRun(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array)
    throw ArgError(env, false, "script must be a Uint32Array");
  auto script = info[0].As<Napi::Uint32Array>();
  size_t pairs = script.ElementLength() / 2;
  auto out = Napi::Uint32Array::New(env, pairs);
  InflightTable table;
  std::vector<std::unique_ptr<IoOp>> records;
  for (size_t k = 0; k < pairs; k++) {
    uint32_t op = script[2 * k];
    uint32_t id = script[2 * k + 1];
    IoOp* found = table.Find(id);
    uint32_t result = 0;
    switch (op) {
      case 0:
        if (found == nullptr) {
          records.push_back(std::make_unique<IoOp>());
          records.back()->id = id;
          table.Insert(records.back().get());
          result = 1;
        }
        break;
      case 1:
        if (found != nullptr) {
          table.Erase(id);
          result = 1;
        }
        break;
      case 2:
        result = found != nullptr && found->id == id ? 1 : 0;
        break;
      case 3:
        result = static_cast<uint32_t>(table.Size());
        break;
      default:
        throw Napi::RangeError::New(env, "unknown table op " + std::to_string(op));
    }
    out[k] = result;
  }
  return out;
}

}  // namespace orbitkv

static Napi::Object InitModule(Napi::Env env, Napi::Object exports) {
  orbitkv::InitSandbox(env, exports);
  exports.Set("ownedAlloc", Napi::Function::New(env, orbitkv::OwnedAlloc, "ownedAlloc"));
  exports.Set("ownedRelease", Napi::Function::New(env, orbitkv::OwnedRelease, "ownedRelease"));
  exports.Set("ownedLive", Napi::Function::New(env, orbitkv::OwnedLive, "ownedLive"));
  exports.Set("inflightTableRun", Napi::Function::New(env, orbitkv::InflightTableRun, "inflightTableRun"));
  return exports;
}

NODE_API_MODULE(orbitkv_native_test, InitModule)
