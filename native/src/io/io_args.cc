#include "io/io_args.h"
#include <string>
#include "args.h"

namespace orbitkv {

static OpKind CheckKind(Napi::Env env, double value, bool vectored) {
  int64_t kind = CheckInt(env, value, "kind", INT32_MIN, INT32_MAX);
  bool known = kind >= static_cast<int64_t>(OpKind::Read) && kind <= static_cast<int64_t>(OpKind::Writev);
  if (!known) throw ArgError(env, true, "unknown op kind " + std::to_string(kind) + " (0 read, 1 write, 2 fsync, 3 readv, 4 writev)");
  auto k = static_cast<OpKind>(kind);
  bool isVec = k == OpKind::Readv || k == OpKind::Writev;
  if (isVec != vectored)
    throw ArgError(env, true, std::string("op kind ") + std::to_string(kind) + (vectored ? " is not vectored: use queue()" : " is vectored: use queueVec()"));
  return k;
}

static OpPtr ParseHead(Napi::Env env, double id, double kind, double fd, bool vectored) {
  OpPtr op = IoOp::Acquire();
  op->id = static_cast<uint32_t>(CheckInt(env, id, "id", 0, UINT32_MAX));
  op->kind = CheckKind(env, kind, vectored);
  op->fd = static_cast<int>(CheckInt(env, fd, "fd", 0, INT32_MAX));
  return op;
}

// One op from its fields (id, kind, fd, bufferOffset, length, fileOffset, bufIndex) and buffer:
// the checks queue() and queueMany() share.
static OpPtr BuildOp(Napi::Env env, const double* f, Napi::Value buffer) {
  auto op = ParseHead(env, f[0], f[1], f[2], false);
  if (op->kind != OpKind::Fsync) {
    Bytes buf = ArgBytes(env, buffer, "buffer");
    auto at = static_cast<size_t>(CheckInt(env, f[3], "bufferOffset", 0, INT64_C(1) << 53));
    auto len = static_cast<size_t>(CheckInt(env, f[4], "length", 0, 0x7ffff000));
    if (at > buf.length || len > buf.length - at)
      throw ArgError(env, true, "range " + std::to_string(at) + "+" + std::to_string(len) + " is outside the " + std::to_string(buf.length) + "-byte buffer");
    op->iov.push_back({buf.data + at, len});
    op->pins.push_back(std::move(buf.store));
    op->bufIndex = static_cast<int32_t>(CheckInt(env, f[6], "bufIndex", -1, INT32_MAX));
  }
  op->offset = CheckInt(env, f[5], "fileOffset", -1, INT64_C(1) << 53);
  return op;
}

// The raw numbers of queue()'s arguments: a missing or non-number one is a TypeError (a
// non-number bufIndex only matters for ops that move bytes, as before).
static double NumberArg(const Napi::CallbackInfo& info, size_t i, const char* name, bool needed) {
  if (info.Length() > i && info[i].IsNumber()) return info[i].As<Napi::Number>().DoubleValue();
  if (!needed) return -1;
  throw ArgError(info.Env(), false, std::string(name) + " must be a number");
}

OpPtr ParseQueue(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  double f[kQueueRow];
  f[0] = NumberArg(info, 0, "id", true);
  f[1] = NumberArg(info, 1, "kind", true);
  f[2] = NumberArg(info, 2, "fd", true);
  bool moves = f[1] != static_cast<double>(OpKind::Fsync);
  Napi::Value buffer = info.Length() > 3 ? info[3] : env.Undefined();
  if (moves) {
    CheckKind(env, f[1], false);  // an unknown kind is named before its arguments
    if (!buffer.IsTypedArray()) ArgBytes(env, buffer, "buffer");  // the type error, first
  }
  f[3] = NumberArg(info, 4, "bufferOffset", moves);
  f[4] = NumberArg(info, 5, "length", moves);
  f[5] = NumberArg(info, 6, "fileOffset", true);
  f[6] = NumberArg(info, 7, "bufIndex", moves);
  return BuildOp(env, f, buffer);
}

OpPtr ParseRow(Napi::Env env, const double* row, Napi::Value buffer) { return BuildOp(env, row, buffer); }

QueueRows ParseQueueRows(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  QueueRows rows;
  if (info.Length() < 3 || !info[2].IsTypedArray() || info[2].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array)
    throw ArgError(env, false, "table must be a Float64Array");
  auto table = info[2].As<Napi::Float64Array>();
  size_t given = info.Length() > kFirstBuffer ? info.Length() - kFirstBuffer : 0;
  size_t capacity = table.ElementLength() / kQueueRow;
  if (given < capacity) capacity = given;
  rows.start = static_cast<size_t>(ArgInt(info, 0, "start", 0, static_cast<int64_t>(capacity)));
  rows.end = static_cast<size_t>(ArgInt(info, 1, "end", static_cast<int64_t>(rows.start), static_cast<int64_t>(capacity)));
  rows.table = table.Data();
  rows.info = &info;
  rows.reap = info.Length() > 3 && info[3].ToBoolean();
  return rows;
}

OpPtr ParseQueueVec(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto op = ParseHead(env, NumberArg(info, 0, "id", true), NumberArg(info, 1, "kind", true), NumberArg(info, 2, "fd", true), true);
  if (info.Length() < 4 || !info[3].IsArray()) throw ArgError(env, false, "buffers must be an array");
  auto list = info[3].As<Napi::Array>();
  if (list.Length() == 0 || list.Length() > kMaxSegments) throw ArgError(env, true, "1..1024 buffers, got " + std::to_string(list.Length()));
  for (uint32_t i = 0; i < list.Length(); i++) {
    Bytes buf = ArgBytes(env, list.Get(i), "buffers[i]");
    op->iov.push_back({buf.data, buf.length});
    op->pins.push_back(std::move(buf.store));
  }
  op->offset = ArgInt(info, 4, "fileOffset", -1, INT64_C(1) << 53);
  return op;
}

unsigned ParseDepth(const Napi::CallbackInfo& info) {
  return static_cast<unsigned>(ArgInt(info, 0, "depth", 1, kMaxDepth));
}

Napi::Error DuplicateId(Napi::Env env, uint32_t id) {
  Napi::Error e = Napi::Error::New(env, "op id " + std::to_string(id) + " is already in flight");
  e.Set("code", Napi::String::New(env, "EEXIST"));
  return e;
}

}  // namespace orbitkv
