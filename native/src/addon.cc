// orbitkv_native: io_uring and thread-pool I/O, aligned buffers, and the CUDA driver (dlopen).
#include <napi.h>
#include "aligned_buffer.h"
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

Napi::Object InitAddon(Napi::Env env, Napi::Object exports) {
  InitAlignedBuffer(env, exports);
  UnixSocket::Init(env, exports);
  InitSharedMemory(env, exports);
  UringRing::Init(env, exports);
  PoolIo::Init(env, exports);
  cuda::InitCuda(env, exports);
  InitBlockCopy(env, exports);
  exports.Set("liveOps", Napi::Function::New(env, LiveOps, "liveOps"));
  return exports;
}

}  // namespace orbitkv

static Napi::Object InitModule(Napi::Env env, Napi::Object exports) { return orbitkv::InitAddon(env, exports); }

NODE_API_MODULE(orbitkv_native, InitModule)
