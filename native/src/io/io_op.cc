#include "io/io_op.h"

namespace orbitkv {

std::atomic<int64_t> IoOp::live{0};

IoOp::IoOp() { live.fetch_add(1, std::memory_order_relaxed); }
IoOp::~IoOp() { live.fetch_sub(1, std::memory_order_relaxed); }

size_t IoOp::Remaining() const {
  size_t n = 0;
  for (const iovec& v : iov) n += v.iov_len;
  return n;
}

bool IoOp::Advance(size_t n) {
  done += static_cast<int64_t>(n);
  if (offset >= 0) offset += static_cast<int64_t>(n);
  size_t i = 0;
  while (i < iov.size() && n >= iov[i].iov_len) n -= iov[i++].iov_len;
  iov.erase(iov.begin(), iov.begin() + static_cast<std::ptrdiff_t>(i));
  if (!iov.empty() && n > 0) {
    iov[0].iov_base = static_cast<uint8_t*>(iov[0].iov_base) + n;
    iov[0].iov_len -= n;
  }
  return !iov.empty();
}

}  // namespace orbitkv
