#include "io/io_args.h"
#include <string>
#include "args.h"

namespace orbitkv {

static OpKind ParseKind(const Napi::CallbackInfo& info, bool vectored) {
  int64_t kind = ArgInt(info, 1, "kind", INT32_MIN, INT32_MAX);
  bool known = kind >= static_cast<int64_t>(OpKind::Read) && kind <= static_cast<int64_t>(OpKind::Writev);
  if (!known) throw ArgError(info.Env(), true, "unknown op kind " + std::to_string(kind) + " (0 read, 1 write, 2 fsync, 3 readv, 4 writev)");
  auto k = static_cast<OpKind>(kind);
  bool isVec = k == OpKind::Readv || k == OpKind::Writev;
  if (isVec != vectored)
    throw ArgError(info.Env(), true, std::string("op kind ") + std::to_string(kind) + (vectored ? " is not vectored: use queue()" : " is vectored: use queueVec()"));
  return k;
}

static std::unique_ptr<IoOp> ParseHead(const Napi::CallbackInfo& info, bool vectored) {
  auto op = std::make_unique<IoOp>();
  op->id = static_cast<uint32_t>(ArgInt(info, 0, "id", 0, UINT32_MAX));
  op->kind = ParseKind(info, vectored);
  op->fd = static_cast<int>(ArgInt(info, 2, "fd", 0, INT32_MAX));
  return op;
}

std::unique_ptr<IoOp> ParseQueue(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto op = ParseHead(info, false);
  if (op->kind != OpKind::Fsync) {
    Bytes buf = ArgBytes(info, 3, "buffer");
    auto at = static_cast<size_t>(ArgInt(info, 4, "bufferOffset", 0, INT64_C(1) << 53));
    auto len = static_cast<size_t>(ArgInt(info, 5, "length", 0, 0x7ffff000));
    if (at > buf.length || len > buf.length - at)
      throw ArgError(env, true, "range " + std::to_string(at) + "+" + std::to_string(len) + " is outside the " + std::to_string(buf.length) + "-byte buffer");
    op->iov.push_back({buf.data + at, len});
    op->pins.push_back(std::move(buf.store));
    op->bufIndex = static_cast<int32_t>(ArgInt(info, 7, "bufIndex", -1, INT32_MAX));
  }
  op->offset = ArgInt(info, 6, "fileOffset", -1, INT64_C(1) << 53);
  return op;
}

std::unique_ptr<IoOp> ParseQueueVec(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto op = ParseHead(info, true);
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
