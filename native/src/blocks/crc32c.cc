// CRC-32C: hardware (SSE4.2 crc32 on x86-64) or a byte table, the same values either way.
#include "crc32c.h"
#include <cstring>
#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace orbitkv {

namespace {

constexpr uint32_t kPolynomial = 0x82F63B78u;

struct Table {
  uint32_t entries[256];
  Table() {
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
      entries[i] = c;
    }
  }
};

const Table& table() {
  static const Table t;
  return t;
}

uint32_t Software(uint32_t crc, const uint8_t* p, size_t n) {
  const uint32_t* t = table().entries;
  for (size_t i = 0; i < n; i++) crc = t[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t Hardware(uint32_t crc, const uint8_t* p, size_t n) {
  uint64_t c = crc;
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    c = _mm_crc32_u8(static_cast<uint32_t>(c), *p++);
    n--;
  }
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c = _mm_crc32_u64(c, word);
    p += 8;
    n -= 8;
  }
  while (n > 0) {
    c = _mm_crc32_u8(static_cast<uint32_t>(c), *p++);
    n--;
  }
  return static_cast<uint32_t>(c);
}

bool hasHardware() {
  static const bool yes = __builtin_cpu_supports("sse4.2");
  return yes;
}
#endif

}  // namespace

bool Crc32cHardware() {
#if defined(__x86_64__)
  return hasHardware();
#else
  return false;
#endif
}

uint32_t Crc32c(uint32_t crc, const uint8_t* data, size_t length) {
  uint32_t c = ~crc;
#if defined(__x86_64__)
  if (hasHardware()) return ~Hardware(c, data, length);
#endif
  return ~Software(c, data, length);
}

}  // namespace orbitkv
