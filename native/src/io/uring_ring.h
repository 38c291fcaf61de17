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
  Napi::Value KernelSubmits(const Napi::CallbackInfo& info);

  void CheckOpen(Napi::Env env) const;
  void CheckFixed(Napi::Env env, const IoOp& op) const;
  Napi::Value SubmitAndReap(Napi::Env env, bool reap);
  /** One submitting kernel entry for what is queued; the kernel's result (< 0: refused). */
  int SubmitPending();
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
  // Most SQEs queueMany hands the kernel per entry. The kernel plugs the block queue for an
  // entry that submits more than two (io_submit_state_start: need_plug = max_ios > 2), and
  // the plugged reads reach the disk as one dispatch with one doorbell; submitted two at a
  // time they go one by one, as fio's do (iodepth_batch_submit=1). Random 4 KiB reads at
  // depth 64 on the dev VM's virtio disk (mq-deadline), queue-probe, 2026-12-03: 16 per entry
  // 0.84-0.86 of fio at 225-236 µs per request in the device; 2 per entry 0.94-0.95 at
  // 169-184 µs (fio 168-191 µs); 3 per entry 0.86-0.90 (plugged again); 1 per entry 0.90-0.99
  // with more CPU per read. ring-ab against main's build, same 4 rounds: 1.07-1.09 of it.
  static constexpr unsigned kUnpluggedRun = 2;
  uint64_t kernelSubmits_ = 0;  // submitting kernel entries, for specs and probes
  bool deferTaskrun_ = false;  // IORING_SETUP_DEFER_TASKRUN took: completions wait for RunDeferred
  InflightTable inflight_;
  std::vector<iovec> registered_;
  std::vector<std::shared_ptr<v8::BackingStore>> registeredPins_;
  CompletionSink sink_;
};

}  // namespace orbitkv
