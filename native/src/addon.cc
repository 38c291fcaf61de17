// orbitkv_native: io_uring and thread-pool I/O, aligned buffers, and the CUDA driver (dlopen).
#include <napi.h>
#include "aligned_buffer.h"
#include "io/fallocate.h"
#include "loop/busy_poll.h"
#include "io/io_op.h"
#include "io/pool_io.h"
#include "io/uring_ring.h"
#include "shm/shared_memory.h"
#include "unix/unix_socket.h"
#include "cuda/cuda_binding.h"
#include "blocks/block_copy.h"

namespace orbitkv {

static Napi::Value LiveOps(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(IoOp::live.load()));
}

// Adds `delta` bytes (negative: takes them away) to what V8 counts as memory held outside its heap
// for this isolate (napi_adjust_external_memory); returns the count after. For memory that lives as
// long as the process and that no collection could free (the Manager's DRAM arena), which V8 would
// otherwise weigh in its collection heuristics.
static Napi::Value AdjustExternalMemory(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) {
    Napi::TypeError::New(env, "adjustExternalMemory(delta): delta must be a number").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const double delta = info[0].As<Napi::Number>().DoubleValue();
  if (!(delta >= -9007199254740991.0 && delta <= 9007199254740991.0) || delta != static_cast<double>(static_cast<int64_t>(delta))) {
    Napi::RangeError::New(env, "adjustExternalMemory(delta): delta must be a safe integer").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  int64_t result = 0;
  if (napi_adjust_external_memory(env, static_cast<int64_t>(delta), &result) != napi_ok) {
    Napi::Error::New(env, "adjustExternalMemory: napi_adjust_external_memory failed").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::Number::New(env, static_cast<double>(result));
}

Napi::Object InitAddon(Napi::Env env, Napi::Object exports) {
  InitAlignedBuffer(env, exports);
  UnixSocket::Init(env, exports);
  InitSharedMemory(env, exports);
  UringRing::Init(env, exports);
  PoolIo::Init(env, exports);
  InitFallocate(env, exports);
  InitBusyPoll(env, exports);
  cuda::InitCuda(env, exports);
  InitBlockCopy(env, exports);
  exports.Set("liveOps", Napi::Function::New(env, LiveOps, "liveOps"));
  exports.Set("adjustExternalMemory", Napi::Function::New(env, AdjustExternalMemory, "adjustExternalMemory"));
  return exports;
}

}  // namespace orbitkv

static Napi::Object InitModule(Napi::Env env, Napi::Object exports) { return orbitkv::InitAddon(env, exports); }

NODE_API_MODULE(orbitkv_native, InitModule)
