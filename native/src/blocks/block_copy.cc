// Block copies off the JS thread: one call moves a batch of byte ranges between buffers on a
// libuv pool thread, checksumming (CRC-32C) what it wrote per group of ranges and setting a
// flag byte after a range's bytes (release order: a reader that sees the flag sees the bytes).
// The copy runs chunk by chunk and each chunk is checksummed while still in cache, so copy and
// checksum cost about one pass over the bytes. A range copied without a checksum in a batch of
// at least kStreamBatch such bytes (a restore's window into an engine's pages) is streamed:
// non-temporal stores write its destination without first reading each line into the cache
// (nobody here reads those bytes again; the engine reads them later, from memory either way),
// which moves a large cold copy at up to twice memcpy's rate; a store fence orders the streamed
// bytes before the range's flag. Every buffer is pinned (its backing store held) until the batch
// settles: a mapping unmapped meanwhile stays until the copy is over.
//
//   copyBlocks(table: Float64Array, rows, buffers: Uint8Array[], groups) -> Promise<Uint32Array>
//     row r at table[r * 9]: [src buffer, src offset, dst buffer, dst offset, length,
//                             flag buffer (-1: none), flag offset, flag value, group (-1: none)]
//     resolves with the CRC-32C of each group's written bytes, its ranges taken in row order.
//     a range whose source is its destination is only checksummed (nothing is copied).
//   crc32c(bytes: Uint8Array, seed = 0) -> number          (synchronous)
//   crc32cHardware() -> boolean
#include "block_copy.h"
#include <algorithm>
#include <cstring>
#include <vector>
#include "../args.h"
#include "crc32c.h"
#include "populate.h"
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace orbitkv {

namespace {

constexpr size_t kRow = 9;
/** Bytes copied before they are checksummed: small enough to still be in the L2 cache. */
constexpr size_t kChunk = 64 * 1024;

struct Range {
  uint8_t* src;
  uint8_t* dst;
  size_t length;
  uint8_t* flag;
  uint8_t flagValue;
  int64_t group;
};

/**
 * Bytes a batch copies without a checksum before its ranges are streamed: above the L2 cache a
 * destination written through the cache is evicted unread anyway, and below it a streamed
 * copy's fence and partial lines cost more than they save.
 */
constexpr size_t kStreamBatch = 256 * 1024;

/** Whether [a, a + n) and [b, b + n) share a byte (memmove's case; a streamed copy needs none). */
bool Overlap(const uint8_t* a, const uint8_t* b, size_t n) {
  return a < b + n && b < a + n;
}

/**
 * Copies `n` bytes with non-temporal stores (SSE2, every x86-64 CPU has it): the unaligned head
 * and the tail through memcpy, the 16-byte aligned body streamed. The caller fences before
 * anything that must be seen after these bytes. Elsewhere a plain memcpy.
 */
void StreamCopy(uint8_t* dst, const uint8_t* src, size_t n) {
#if defined(__x86_64__)
  size_t head = std::min(n, (16 - (reinterpret_cast<uintptr_t>(dst) & 15)) & 15);
  std::memcpy(dst, src, head);
  dst += head;
  src += head;
  n -= head;
  for (; n >= 64; n -= 64, dst += 64, src += 64) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 16));
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 32));
    __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + 48), d);
  }
  for (; n >= 16; n -= 16, dst += 16, src += 16) _mm_stream_si128(reinterpret_cast<__m128i*>(dst), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
  std::memcpy(dst, src, n);
#else
  std::memcpy(dst, src, n);
#endif
}

/** Orders every streamed store before the stores that follow (a flag; the batch's completion). */
void StreamFence() {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

class CopyWorker : public Napi::AsyncWorker {
 public:
  CopyWorker(Napi::Env env, std::vector<Bytes> buffers, std::vector<Range> ranges, size_t groups)
      : Napi::AsyncWorker(env, "orbitkv.copyBlocks"), deferred_(Napi::Promise::Deferred::New(env)), buffers_(std::move(buffers)), ranges_(std::move(ranges)), crcs_(groups, 0) {}

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    size_t plain = 0;
    for (const Range& r : ranges_)
      if (r.group < 0 && r.src != r.dst) plain += r.length;
    const bool stream = plain >= kStreamBatch;
    for (const Range& r : ranges_) {
      uint32_t* crc = r.group >= 0 ? &crcs_[static_cast<size_t>(r.group)] : nullptr;
      if (r.src == r.dst) {
        if (crc != nullptr) *crc = Crc32c(*crc, r.dst, r.length);
      } else if (Overlap(r.src, r.dst, r.length)) {
        // One memmove: chunks taken in order would overwrite source bytes not yet copied.
        std::memmove(r.dst, r.src, r.length);
        if (crc != nullptr) *crc = Crc32c(*crc, r.dst, r.length);
      } else if (stream && crc == nullptr) {
        StreamCopy(r.dst, r.src, r.length);
        StreamFence();
      } else {
        for (size_t at = 0; at < r.length; at += kChunk) {
          size_t n = std::min(kChunk, r.length - at);
          std::memcpy(r.dst + at, r.src + at, n);
          if (crc != nullptr) *crc = Crc32c(*crc, r.dst + at, n);
        }
      }
      if (r.flag != nullptr) __atomic_store_n(r.flag, r.flagValue, __ATOMIC_RELEASE);
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    auto out = Napi::Uint32Array::New(env, crcs_.size());
    if (!crcs_.empty()) std::memcpy(out.Data(), crcs_.data(), crcs_.size() * sizeof(uint32_t));
    buffers_.clear();
    deferred_.Resolve(out);
  }

  void OnError(const Napi::Error& error) override {
    buffers_.clear();
    deferred_.Reject(error.Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  std::vector<Bytes> buffers_;
  std::vector<Range> ranges_;
  std::vector<uint32_t> crcs_;
};

Napi::Value CopyBlocks(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array)
    throw ArgError(env, false, "table must be a Float64Array");
  auto table = info[0].As<Napi::Float64Array>();
  int64_t rows = ArgInt(info, 1, "rows", 0, static_cast<int64_t>(table.ElementLength() / kRow));
  if (info.Length() < 3 || !info[2].IsArray()) throw ArgError(env, false, "buffers must be an array of Uint8Arrays");
  auto list = info[2].As<Napi::Array>();
  int64_t groups = ArgInt(info, 3, "groups", 0, 1 << 24);
  std::vector<Bytes> buffers;
  buffers.reserve(list.Length());
  for (uint32_t i = 0; i < list.Length(); i++) buffers.push_back(ArgBytes(env, list.Get(i), "buffers[i]"));
  const int64_t count = static_cast<int64_t>(buffers.size());
  std::vector<Range> ranges;
  ranges.reserve(static_cast<size_t>(rows));
  const double* t = table.Data();
  for (int64_t r = 0; r < rows; r++) {
    const double* row = t + r * kRow;
    const Bytes& src = buffers[static_cast<size_t>(CheckInt(env, row[0], "source buffer", 0, count - 1))];
    int64_t srcOffset = CheckInt(env, row[1], "source offset", 0, static_cast<int64_t>(src.length));
    const Bytes& dst = buffers[static_cast<size_t>(CheckInt(env, row[2], "destination buffer", 0, count - 1))];
    int64_t dstOffset = CheckInt(env, row[3], "destination offset", 0, static_cast<int64_t>(dst.length));
    int64_t length = CheckInt(env, row[4], "length", 0, static_cast<int64_t>(std::min(src.length - srcOffset, dst.length - dstOffset)));
    Range range{src.data + srcOffset, dst.data + dstOffset, static_cast<size_t>(length), nullptr, 0, -1};
    int64_t flagBuffer = CheckInt(env, row[5], "flag buffer", -1, count - 1);
    if (flagBuffer >= 0) {
      const Bytes& flags = buffers[static_cast<size_t>(flagBuffer)];
      int64_t flagOffset = CheckInt(env, row[6], "flag offset", 0, static_cast<int64_t>(flags.length) - 1);
      range.flag = flags.data + flagOffset;
      range.flagValue = static_cast<uint8_t>(CheckInt(env, row[7], "flag value", 0, 255));
    }
    range.group = CheckInt(env, row[8], "group", -1, groups - 1);
    ranges.push_back(range);
  }
  auto* worker = new CopyWorker(env, std::move(buffers), std::move(ranges), static_cast<size_t>(groups));
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

Napi::Value Crc32cValue(const Napi::CallbackInfo& info) {
  Bytes bytes = ArgBytes(info, 0, "bytes");
  uint32_t seed = info.Length() > 1 && !info[1].IsUndefined() ? static_cast<uint32_t>(ArgInt(info, 1, "seed", 0, 0xffffffffll)) : 0;
  return Napi::Number::New(info.Env(), Crc32c(seed, bytes.data, bytes.length));
}

Napi::Value Crc32cHardwareValue(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), Crc32cHardware());
}

}  // namespace

void InitBlockCopy(Napi::Env env, Napi::Object exports) {
  exports.Set("copyBlocks", Napi::Function::New(env, CopyBlocks, "copyBlocks"));
  exports.Set("crc32c", Napi::Function::New(env, Crc32cValue, "crc32c"));
  exports.Set("crc32cHardware", Napi::Function::New(env, Crc32cHardwareValue, "crc32cHardware"));
  InitPopulate(env, exports);
}

}  // namespace orbitkv
