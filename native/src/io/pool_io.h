// PoolIo: the thread-pool backend for machines that refuse io_uring. Each op is a pread/pwrite
// (or preadv/pwritev/fsync) on libuv's pool; uv_cancel takes back ops no thread has started,
// and a stream op (a pipe, socket or terminal at its current position) waits in poll() with a
// cancel eventfd, so a running one can be cancelled too.
#pragma once
#include <napi.h>
#include <uv.h>
#include <memory>
#include <unordered_map>
#include "io/completion_sink.h"
#include "io/io_op.h"

namespace orbitkv {

class PoolIo : public Napi::ObjectWrap<PoolIo> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  /** new PoolIo(depth, callback, ids, results) */
  explicit PoolIo(const Napi::CallbackInfo& info);
  ~PoolIo() override;

 private:
  struct Work {
    uv_work_t req;
    OpPtr op;
    PoolIo* owner;
    int error = 0;
    // Stream ops only (offset -1: pipes, sockets, where a read or write can wait forever): an
    // eventfd Cancel signals, which the pool thread polls together with the op's fd.
    int cancelFd = -1;
    ~Work();
  };

  Napi::Value Queue(const Napi::CallbackInfo& info);
  Napi::Value QueueVec(const Napi::CallbackInfo& info);
  Napi::Value QueueMany(const Napi::CallbackInfo& info);
  Napi::Value Submit(const Napi::CallbackInfo& info);
  Napi::Value Cancel(const Napi::CallbackInfo& info);
  Napi::Value RegisterBuffers(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);
  Napi::Value InFlight(const Napi::CallbackInfo& info);
  Napi::Value Depth(const Napi::CallbackInfo& info);

  void CheckOpen(Napi::Env env) const;
  void Start(Napi::Env env, OpPtr op);
  static void Execute(uv_work_t* req);
  static void AfterExecute(uv_work_t* req, int status);

  bool open_ = true;
  bool refd_ = false;
  unsigned depth_ = 0;
  uv_loop_t* loop_ = nullptr;
  std::unordered_map<uint32_t, Work*> inflight_;
  CompletionSink sink_;
};

}  // namespace orbitkv
