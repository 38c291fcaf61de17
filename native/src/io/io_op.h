// One submitted I/O operation. Its state travels with the request (liburing/fio style): where
// it is, how far it got, so short transfers and -EAGAIN are resubmitted without JS noticing.
// Records are pooled per thread (IoOp::Acquire / IoOp::Release): a steady stream of ops
// allocates nothing once the pool holds a depth's worth, and a released record keeps the
// capacity of its vectors but none of its buffers.
#pragma once
#include <sys/uio.h>
#include <v8.h>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace orbitkv {

enum class OpKind : int32_t { Read = 0, Write = 1, Fsync = 2, Readv = 3, Writev = 4 };

struct IoOp {
  uint32_t id = 0;
  OpKind kind = OpKind::Read;
  int fd = -1;
  int64_t offset = 0;       // file offset of the next byte; -1: the file's current position
  int32_t bufIndex = -1;    // registered-buffer index (io_uring only), -1 when not registered
  std::vector<iovec> iov;   // remaining segments (one for read/write)
  int64_t done = 0;         // bytes transferred so far
  // The memory of every buffer, held until the op is reaped: a buffer JS detaches (transfers)
  // while the kernel or a pool thread writes into it stays allocated until then.
  std::vector<std::shared_ptr<v8::BackingStore>> pins;

  IoOp() = default;
  IoOp(const IoOp&) = delete;
  IoOp& operator=(const IoOp&) = delete;

  /** Returns a released record to the pool (delete for a unique_ptr). */
  struct Releaser {
    void operator()(IoOp* op) const { Release(op); }
  };
  /** A fresh record (all fields at their defaults), from this thread's pool when it has one. */
  static std::unique_ptr<IoOp, Releaser> Acquire();
  /** Drops the record's buffers at once, then keeps it for reuse (up to kPoolLimit per thread). */
  static void Release(IoOp* op);
  /** Most released records a thread keeps: more are freed. */
  static constexpr size_t kPoolLimit = 4096;

  bool IsRead() const { return kind == OpKind::Read || kind == OpKind::Readv; }
  size_t Remaining() const;
  /** Records `n` transferred bytes; returns true when the op still has bytes to move. */
  bool Advance(size_t n);

  /** Ops acquired and not yet released, across all rings: specs assert it returns to zero. */
  static std::atomic<int64_t> live;
};

/** An op owned by native code until it is reaped; released into the pool, never deleted. */
using OpPtr = std::unique_ptr<IoOp, IoOp::Releaser>;

}  // namespace orbitkv
