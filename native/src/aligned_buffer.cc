// Aligned buffers owned by native memory, handed to JS as Buffers whose finalizer frees them.
#include <napi.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include "aligned_buffer.h"
#include "args.h"
#include "errno_name.h"

namespace orbitkv {

// How a buffer was allocated, for its finalizer: posix_memalign (freed with free), or its own
// mapping (unmapped).
struct Allocation {
  size_t mapBytes;  // 0: posix_memalign
};

// V8 counts an external Buffer's bytes as external memory itself (as it makes the Buffer, and
// uncounts them as it frees it): adjusting the count here as well counted each aligned buffer twice
// (a 32 MiB arena was 64 MB of V8's count), and held V8 in its external-memory-pressure state.
static void FreeAligned(Napi::Env, uint8_t* data, Allocation* a) {
  if (a->mapBytes > 0) munmap(data, a->mapBytes);
  else std::free(data);
  delete a;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

constexpr size_t kHuge = size_t{2} << 20;

// A large buffer (the Manager's DRAM arena) gets a mapping of its own, 2 MiB aligned, advised to
// transparent huge pages and populated by the kernel (MADV_POPULATE_WRITE; a byte written per
// page where the kernel predates it), so it is resident, and zero, before it is used. Filling a
// 1 GiB arena byte by byte (posix_memalign + memset, in 4 KiB pages) took 4.25 s on the dev VM,
// most of the Manager's start. Null with errno set (and `failed` naming the call) when the mapping
// or its pages are refused.
static uint8_t* MapPopulated(size_t size, size_t* mapBytes, const char** failed) {
  const size_t bytes = (size + kHuge - 1) & ~(kHuge - 1);
  void* base = mmap(nullptr, bytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    *failed = "mmap";
    return nullptr;
  }
  const uintptr_t b = reinterpret_cast<uintptr_t>(base);
  const uintptr_t start = (b + kHuge - 1) & ~(kHuge - 1);
  // The slack before and after the aligned range goes back at once (never touched, never resident).
  if (start > b) munmap(base, start - b);
  if (b + bytes + kHuge > start + bytes) munmap(reinterpret_cast<void*>(start + bytes), b + bytes + kHuge - (start + bytes));
  auto* data = reinterpret_cast<uint8_t*>(start);
  // Advice only: a kernel without THP (or with it off) keeps 4 KiB pages.
  madvise(data, bytes, MADV_HUGEPAGE);
  if (madvise(data, bytes, MADV_POPULATE_WRITE) != 0) {
    if (errno != EINVAL) {
      int err = errno;
      munmap(data, bytes);
      errno = err;
      *failed = "madvise(MADV_POPULATE_WRITE)";
      return nullptr;
    }
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    for (size_t at = 0; at < bytes; at += page) data[at] = 0;
  }
  *mapBytes = bytes;
  return data;
}

// allocAligned(size, alignment) -> Buffer; zero-filled so no stale heap bytes reach disk.
static Napi::Value AllocAligned(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  // Checked, not converted: Int64Value() made NaN and Infinity a 0-byte Buffer and -1 a
  // 2^64-byte request. A non-power-of-two alignment is posix_memalign's EINVAL.
  auto size = static_cast<size_t>(ArgInt(info, 0, "size", 0, INT64_C(1) << 53));
  auto alignment = static_cast<size_t>(ArgInt(info, 1, "alignment", 1, INT64_C(1) << 30));
  if (size >= kHuge && alignment <= kHuge && (alignment & (alignment - 1)) == 0) {
    size_t mapBytes = 0;
    const char* failed = "mmap";
    uint8_t* data = MapPopulated(size, &mapBytes, &failed);
    if (data == nullptr) throw SystemError(env, errno, failed, std::to_string(size) + " bytes");
    return Napi::Buffer<uint8_t>::New(env, data, size, FreeAligned, new Allocation{mapBytes});
  }
  void* data = nullptr;
  int err = posix_memalign(&data, alignment, size == 0 ? alignment : size);
  if (err != 0) throw SystemError(env, err, "posix_memalign", std::to_string(size) + " bytes");
  std::memset(data, 0, size);
  return Napi::Buffer<uint8_t>::New(env, static_cast<uint8_t*>(data), size, FreeAligned, new Allocation{0});
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
