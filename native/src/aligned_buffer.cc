// Aligned buffers owned by native memory, handed to JS as Buffers whose finalizer frees them.
#include <napi.h>
#include <cstdlib>
#include <cstring>
#include "aligned_buffer.h"
#include "args.h"
#include "errno_name.h"

namespace orbitkv {

// V8 counts an external Buffer's bytes as external memory itself (as it makes the Buffer, and
// uncounts them as it frees it): adjusting the count here as well counted each aligned buffer twice
// (a 32 MiB arena was 64 MB of V8's count), and held V8 in its external-memory-pressure state.
static void FreeAligned(Napi::Env, uint8_t* data, size_t* size) {
  std::free(data);
  delete size;
}

// allocAligned(size, alignment) -> Buffer; zero-filled so no stale heap bytes reach disk.
static Napi::Value AllocAligned(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  // Checked, not converted: Int64Value() made NaN and Infinity a 0-byte Buffer and -1 a
  // 2^64-byte request. A non-power-of-two alignment is posix_memalign's EINVAL.
  auto size = static_cast<size_t>(ArgInt(info, 0, "size", 0, INT64_C(1) << 53));
  auto alignment = static_cast<size_t>(ArgInt(info, 1, "alignment", 1, INT64_C(1) << 30));
  void* data = nullptr;
  int err = posix_memalign(&data, alignment, size == 0 ? alignment : size);
  if (err != 0) throw SystemError(env, err, "posix_memalign", std::to_string(size) + " bytes");
  std::memset(data, 0, size);
  return Napi::Buffer<uint8_t>::New(env, static_cast<uint8_t*>(data), size, FreeAligned, new size_t(size));
}

// bufferAddress(buf) -> bigint, for alignment checks and registered-buffer bookkeeping.
static Napi::Value BufferAddress(const Napi::CallbackInfo& info) {
  // A detached view's address is 0, which no caller can use: refused (ERR_BUFFER_DETACHED).
  Bytes buf = ArgBytes(info, 0, "buffer");
  return Napi::BigInt::New(info.Env(), static_cast<uint64_t>(reinterpret_cast<uintptr_t>(buf.data)));
}

void InitAlignedBuffer(Napi::Env env, Napi::Object exports) {
  exports.Set("allocAligned", Napi::Function::New(env, AllocAligned, "allocAligned"));
  exports.Set("bufferAddress", Napi::Function::New(env, BufferAddress, "bufferAddress"));
}

}  // namespace orbitkv
