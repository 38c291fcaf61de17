// Aligned buffers owned by native memory, handed to JS as Buffers whose finalizer frees them.
#include <napi.h>
#include <cstdlib>
#include <cstring>
#include "aligned_buffer.h"
#include "errno_name.h"

namespace orbitkv {

static void FreeAligned(Napi::Env env, uint8_t* data, size_t* size) {
  Napi::MemoryManagement::AdjustExternalMemory(env, -static_cast<int64_t>(*size));
  std::free(data);
  delete size;
}

// allocAligned(size, alignment) -> Buffer; zero-filled so no stale heap bytes reach disk.
static Napi::Value AllocAligned(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t size = static_cast<size_t>(info[0].As<Napi::Number>().Int64Value());
  size_t alignment = static_cast<size_t>(info[1].As<Napi::Number>().Int64Value());
  void* data = nullptr;
  int err = posix_memalign(&data, alignment, size == 0 ? alignment : size);
  if (err != 0) throw SystemError(env, err, "posix_memalign", std::to_string(size) + " bytes");
  std::memset(data, 0, size);
  Napi::MemoryManagement::AdjustExternalMemory(env, static_cast<int64_t>(size));
  return Napi::Buffer<uint8_t>::New(env, static_cast<uint8_t*>(data), size, FreeAligned, new size_t(size));
}

// bufferAddress(buf) -> bigint, for alignment checks and registered-buffer bookkeeping.
static Napi::Value BufferAddress(const Napi::CallbackInfo& info) {
  auto buf = info[0].As<Napi::Uint8Array>();
  return Napi::BigInt::New(info.Env(), static_cast<uint64_t>(reinterpret_cast<uintptr_t>(buf.Data())));
}

void InitAlignedBuffer(Napi::Env env, Napi::Object exports) {
  exports.Set("allocAligned", Napi::Function::New(env, AllocAligned, "allocAligned"));
  exports.Set("bufferAddress", Napi::Function::New(env, BufferAddress, "bufferAddress"));
}

}  // namespace orbitkv
