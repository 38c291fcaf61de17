// UringRing: one io_uring instance. Completions wake the JS event loop through an eventfd
// registered with the ring and watched by uv_poll: no busy polling, no thread per op.
#pragma once
#include <liburing.h>
#include <napi.h>
#include <uv.h>
#include <memory>
#include <vector>
#include "io/completion_sink.h"
#include "io/inflight_table.h"
#include "io/io_op.h"

namespace orbitkv {

class UringRing : public Napi::ObjectWrap<UringRing> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  /** new UringRing(depth, callback, ids, results) */
  explicit UringRing(const Napi::CallbackInfo& info);
  ~UringRing() override;

 private:
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
  void CheckFixed(Napi::Env env, const IoOp& op) const;
  Napi::Value SubmitAndReap(Napi::Env env, bool reap);
  io_uring_sqe* GetSqe(Napi::Env env);
  void Prep(io_uring_sqe* sqe, IoOp* op);
  void Track(Napi::Env env, OpPtr op);
  void Reap(Napi::Env env);
  size_t Collect(Napi::Env env);
  bool BecameIdle();
  void RunDeferred();
  void Teardown();
  static void OnPoll(uv_poll_t* handle, int status, int events);

  io_uring ring_{};
  bool open_ = false;
  unsigned depth_ = 0;
  int eventFd_ = -1;
  uv_poll_t* poll_ = nullptr;
  bool refd_ = false;
  bool deferTaskrun_ = false;  // IORING_SETUP_DEFER_TASKRUN took: completions wait for RunDeferred
  InflightTable inflight_;
  std::vector<iovec> registered_;
  std::vector<std::shared_ptr<v8::BackingStore>> registeredPins_;
  CompletionSink sink_;
};

}  // namespace orbitkv
