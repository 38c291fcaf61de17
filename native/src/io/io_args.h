// The raw I/O binding's arguments, checked in one place for both backends: a wrong call
// straight into the addon is a JS TypeError/RangeError with a code, never a crash or an op
// that cannot complete.
#pragma once
#include <napi.h>
#include <memory>
#include "io/io_op.h"

namespace orbitkv {

/** Deepest ring either backend opens (io_uring's own limit, IORING_MAX_ENTRIES). */
constexpr int64_t kMaxDepth = 32768;
/** Most segments one vectored op takes (IOV_MAX). */
constexpr uint32_t kMaxSegments = 1024;

/** Numbers per op in queueMany()'s table: id, kind, fd, bufferOffset, length, fileOffset, bufIndex. */
constexpr size_t kQueueRow = 7;

/** queue(id, kind, fd, buffer|null, bufferOffset, length, fileOffset, bufIndex) */
OpPtr ParseQueue(const Napi::CallbackInfo& info);
/** One row of queueMany()'s table (kQueueRow numbers) with its buffer (ignored for fsync). */
OpPtr ParseRow(Napi::Env env, const double* row, Napi::Value buffer);
/** Where queueMany's buffers begin among its arguments: row i's is argument kFirstBuffer + i. */
constexpr size_t kFirstBuffer = 4;
/** queueMany(start, end, table, reap, ...buffers): the rows to queue, checked against the table
 *  and the buffers given (row i's buffer is argument kFirstBuffer + i: reading an argument is a
 *  pointer load, where reading an array element from C++ went through V8's generic lookup). */
struct QueueRows {
  size_t start = 0;
  size_t end = 0;
  const double* table = nullptr;
  const Napi::CallbackInfo* info = nullptr;
  bool reap = false;
  /** Row i's buffer (i < end). */
  Napi::Value Buffer(size_t i) const { return (*info)[kFirstBuffer + i]; }
};
QueueRows ParseQueueRows(const Napi::CallbackInfo& info);
/** queueVec(id, kind, fd, buffers[], fileOffset) */
OpPtr ParseQueueVec(const Napi::CallbackInfo& info);
/** new Backend(depth, onComplete, ids, results): the depth. */
unsigned ParseDepth(const Napi::CallbackInfo& info);
/** A duplicate id would orphan the first op's completion: refused. */
Napi::Error DuplicateId(Napi::Env env, uint32_t id);

}  // namespace orbitkv
