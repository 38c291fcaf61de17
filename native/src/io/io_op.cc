#include "io/io_op.h"

namespace orbitkv {

std::atomic<int64_t> IoOp::live{0};

namespace {
/** 0 before this thread's pool exists, 1 while it does, 2 once it was destroyed at thread exit
 *  (an op released after that, by a late finalizer, is plainly deleted). Trivially destructible,
 *  so it can be read at any time. */
thread_local int poolState = 0;
/** This thread's released records; freed with the thread. */
struct OpPool {
  std::vector<IoOp*> free;
  OpPool() { poolState = 1; }
  ~OpPool() {
    poolState = 2;
    for (IoOp* op : free) delete op;
  }
};
thread_local OpPool pool;
}  // namespace

OpPtr IoOp::Acquire() {
  live.fetch_add(1, std::memory_order_relaxed);
  if (poolState == 2 || pool.free.empty()) return OpPtr(new IoOp());
  IoOp* op = pool.free.back();
  pool.free.pop_back();
  return OpPtr(op);
}

void IoOp::Release(IoOp* op) {
  if (op == nullptr) return;
  live.fetch_sub(1, std::memory_order_relaxed);
  op->pins.clear();  // the buffers go now, whatever happens to the record
  if (poolState == 2 || pool.free.size() >= kPoolLimit) {
    delete op;
    return;
  }
  op->iov.clear();
  op->id = 0;
  op->kind = OpKind::Read;
  op->fd = -1;
  op->offset = 0;
  op->bufIndex = -1;
  op->done = 0;
  pool.free.push_back(op);
}

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
