#include "io/uring_ring.h"
#include <sys/eventfd.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <string>
#include "errno_name.h"
#include "args.h"
#include "io/io_args.h"

namespace orbitkv {

// user_data of our own cancel requests: never a valid IoOp pointer.
static constexpr uint64_t kCancelTag = 1;

void UringRing::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = DefineClass(env, "UringRing",
                                   {InstanceMethod<&UringRing::Queue>("queue"),
                                    InstanceMethod<&UringRing::QueueVec>("queueVec"),
                                    InstanceMethod<&UringRing::QueueMany>("queueMany"),
                                    InstanceMethod<&UringRing::Submit>("submit"),
                                    InstanceMethod<&UringRing::Cancel>("cancel"),
                                    InstanceMethod<&UringRing::RegisterBuffers>("registerBuffers"),
                                    InstanceMethod<&UringRing::Close>("close"),
                                    InstanceAccessor<&UringRing::InFlight>("inFlight"),
                                    InstanceAccessor<&UringRing::Depth>("depth"),
                                    InstanceAccessor<&UringRing::KernelSubmits>("kernelSubmits")});
  exports.Set("UringRing", cls);
}

UringRing::UringRing(const Napi::CallbackInfo& info) : Napi::ObjectWrap<UringRing>(info) {
  Napi::Env env = info.Env();
  unsigned depth = ParseDepth(info);
  sink_.Init(info, 1);  // checked before any resource exists
  // Only this (the JS) thread submits and reaps, so it sets the ring up as fio's io_uring
  // engine does: DEFER_TASKRUN (6.1) runs completion work only when we ask (a submit that
  // reaps, or an eventfd wakeup), in one batch, never as signal-style work on whatever
  // syscall the loop makes next. On the dev VM's disk, random 4 KiB reads at depth 64 in the
  // same rounds as COOP_TASKRUN: 2-3 % more IOPS on the mean, CPU per read within 0.6 µs either
  // way (spec/bench/results/io-cpu.txt): no worse, and the same setup as the fio peer. Older
  // kernels refuse flags with EINVAL: COOP_TASKRUN (5.19), then none.
  int ret = io_uring_queue_init(depth, &ring_, IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SINGLE_ISSUER);
  deferTaskrun_ = ret == 0;
  if (ret == -EINVAL) ret = io_uring_queue_init(depth, &ring_, IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER);
  if (ret == -EINVAL) ret = io_uring_queue_init(depth, &ring_, 0);
  if (ret < 0) throw SystemError(env, -ret, "io_uring_setup", "depth " + std::to_string(depth));
  open_ = true;
  depth_ = ring_.sq.ring_entries;
  eventFd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (eventFd_ < 0) {
    int err = errno;
    Teardown();
    throw SystemError(env, err, "eventfd", "");
  }
  ret = io_uring_register_eventfd(&ring_, eventFd_);
  if (ret < 0) {
    Teardown();
    throw SystemError(env, -ret, "io_uring_register_eventfd", "");
  }
  uv_loop_t* loop = nullptr;
  napi_get_uv_event_loop(env, &loop);
  poll_ = new uv_poll_t;
  uv_poll_init(loop, poll_, eventFd_);
  poll_->data = this;
  uv_poll_start(poll_, UV_READABLE, &UringRing::OnPoll);
  uv_unref(reinterpret_cast<uv_handle_t*>(poll_));  // an idle ring never keeps the process alive
}

UringRing::~UringRing() {
  refd_ = false;  // finalizing: the reference is already gone
  Teardown();
}

void UringRing::Teardown() {
  if (poll_ != nullptr) {
    uv_poll_stop(poll_);
    poll_->data = nullptr;
    uv_close(reinterpret_cast<uv_handle_t*>(poll_), [](uv_handle_t* h) { delete reinterpret_cast<uv_poll_t*>(h); });
    poll_ = nullptr;
  }
  if (open_) {
    io_uring_queue_exit(&ring_);  // the kernel cancels and waits for anything still running
    open_ = false;
  }
  if (eventFd_ >= 0) {
    close(eventFd_);
    eventFd_ = -1;
  }
  inflight_.ForEach([](IoOp* op) { IoOp::Release(op); });
  inflight_.Clear();
  registered_.clear();
  registeredPins_.clear();
  sink_.Reset();
  if (refd_) {
    refd_ = false;
    Unref();
  }
}

void UringRing::CheckOpen(Napi::Env env) const {
  if (!open_) {
    Napi::Error e = Napi::Error::New(env, "the ring is closed");
    e.Set("code", Napi::String::New(env, "ERING_CLOSED"));
    throw e;
  }
}

io_uring_sqe* UringRing::GetSqe(Napi::Env env) {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) {
    SubmitPending();
    sqe = io_uring_get_sqe(&ring_);
  }
  if (sqe == nullptr) throw SystemError(env, EBUSY, "io_uring_get_sqe", "submission queue full");
  return sqe;
}

void UringRing::Prep(io_uring_sqe* sqe, IoOp* op) {
  iovec none{nullptr, 0};
  iovec& first = op->iov.empty() ? none : op->iov[0];
  uint64_t off = static_cast<uint64_t>(op->offset);
  switch (op->kind) {
    case OpKind::Read:
      if (op->bufIndex >= 0)
        io_uring_prep_read_fixed(sqe, op->fd, first.iov_base, first.iov_len, off, op->bufIndex);
      else
        io_uring_prep_read(sqe, op->fd, first.iov_base, first.iov_len, off);
      break;
    case OpKind::Write:
      if (op->bufIndex >= 0)
        io_uring_prep_write_fixed(sqe, op->fd, first.iov_base, first.iov_len, off, op->bufIndex);
      else
        io_uring_prep_write(sqe, op->fd, first.iov_base, first.iov_len, off);
      break;
    case OpKind::Readv:
      io_uring_prep_readv(sqe, op->fd, op->iov.data(), op->iov.size(), off);
      break;
    case OpKind::Writev:
      io_uring_prep_writev(sqe, op->fd, op->iov.data(), op->iov.size(), off);
      break;
    case OpKind::Fsync:
      io_uring_prep_fsync(sqe, op->fd, 0);
      break;
  }
  io_uring_sqe_set_data(sqe, op);
}

void UringRing::Track(Napi::Env env, OpPtr owned) {
  if (inflight_.Find(owned->id) != nullptr) throw DuplicateId(env, owned->id);
  io_uring_sqe* sqe = GetSqe(env);
  IoOp* op = owned.release();
  Prep(sqe, op);
  inflight_.Insert(op);
  if (!refd_) {
    refd_ = true;
    Ref();  // keep this object (and the buffers JS holds for it) alive while the kernel works
    uv_ref(reinterpret_cast<uv_handle_t*>(poll_));
  }
}

void UringRing::CheckFixed(Napi::Env env, const IoOp& op) const {
  if (op.bufIndex < 0) return;
  auto index = static_cast<size_t>(op.bufIndex);
  const iovec& range = op.iov[0];
  auto* at = static_cast<uint8_t*>(range.iov_base);
  bool inside = index < registered_.size() && at >= static_cast<uint8_t*>(registered_[index].iov_base) &&
                at + range.iov_len <= static_cast<uint8_t*>(registered_[index].iov_base) + registered_[index].iov_len;
  if (!inside) throw ArgError(env, true, "range is not inside registered buffer " + std::to_string(index));
}

// queue(id, kind, fd, buffer|null, bufferOffset, length, fileOffset, bufIndex)
Napi::Value UringRing::Queue(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  OpPtr op = ParseQueue(info);
  CheckOpen(env);  // as QueueVec's: parsing must not be trusted to leave the ring open
  CheckFixed(env, *op);
  Track(env, std::move(op));
  return env.Undefined();
}

// queueMany(start, end, table, reap, ...buffers) -> completions handed back (as submit(reap)).
// Rows [start, end) of `table` (kQueueRow numbers each, as queue()'s), row i with the buffer
// argument kFirstBuffer + i: one crossing for a whole pump. A bad row throws with `index` set after the rows before it were
// submitted, so the caller knows exactly which ops are in flight.
Napi::Value UringRing::QueueMany(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  QueueRows rows = ParseQueueRows(info);
  for (size_t i = rows.start; i < rows.end; i++) {
    try {
      OpPtr op = ParseRow(env, rows.table + i * kQueueRow, rows.Buffer(i));
      CheckOpen(env);  // as QueueVec's
      CheckFixed(env, *op);
      Track(env, std::move(op));
      // The last run goes with the reaping entry below. A refused submit leaves its SQEs in
      // the queue for that entry, which reports the error.
      if (io_uring_sq_ready(&ring_) >= kUnpluggedRun && i + 1 < rows.end) SubmitPending();
    } catch (Napi::Error& e) {
      if (io_uring_sq_ready(&ring_) > 0) SubmitPending();
      e.Set("index", Napi::Number::New(env, static_cast<double>(i)));
      throw;
    }
  }
  return SubmitAndReap(env, rows.reap);
}

// queueVec(id, kind, fd, buffers[], fileOffset)
Napi::Value UringRing::QueueVec(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  OpPtr op = ParseQueueVec(info);
  CheckOpen(env);  // reading the buffers array can run JS (an accessor) that closed the ring
  Track(env, std::move(op));
  return env.Undefined();
}

// submit(reap) -> completions already waiting, collected into the arrays for the caller to
// read now (only with `reap`; else 0). Saves the eventfd and poll round trip when the kernel
// finished ops while JS was busy: completions delivered in batches on the submitting call.
Napi::Value UringRing::Submit(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  return SubmitAndReap(env, info.Length() >= 1 && info[0].ToBoolean());
}

int UringRing::SubmitPending() {
  kernelSubmits_++;
  return io_uring_submit(&ring_);
}

Napi::Value UringRing::SubmitAndReap(Napi::Env env, bool reap) {
  int ret;
  // With deferred completion work, one entry submits and runs the completions already waiting.
  do {
    kernelSubmits_++;
    ret = reap && deferTaskrun_ ? io_uring_submit_and_get_events(&ring_) : io_uring_submit(&ring_);
  } while (ret == -EINTR);
  if (ret < 0) throw SystemError(env, -ret, "io_uring_enter", "submit");
  if (!reap) return Napi::Number::New(env, 0);
  Collect(env);
  bool idle = BecameIdle();
  size_t count = sink_.Take();
  if (idle) Unref();
  return Napi::Number::New(env, static_cast<double>(count));
}

// cancel(id) -> true when a cancel request went to the kernel; the op's own completion then
// says what happened (-ECANCELED or its real result).
Napi::Value UringRing::Cancel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  auto id = static_cast<uint32_t>(ArgInt(info, 0, "id", 0, UINT32_MAX));
  IoOp* op = inflight_.Find(id);
  if (op == nullptr) return Napi::Boolean::New(env, false);
  io_uring_sqe* sqe = GetSqe(env);
  io_uring_prep_cancel64(sqe, reinterpret_cast<uint64_t>(op), 0);
  io_uring_sqe_set_data64(sqe, kCancelTag);
  SubmitPending();
  return Napi::Boolean::New(env, true);
}

// registerBuffers(buffers[]) -> count; replaces any earlier registration.
Napi::Value UringRing::RegisterBuffers(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  if (!inflight_.Empty()) throw SystemError(env, EBUSY, "io_uring_register_buffers", "ops in flight");
  if (info.Length() < 1 || !info[0].IsArray()) throw ArgError(env, false, "buffers must be an array");
  auto list = info[0].As<Napi::Array>();
  if (list.Length() > kMaxSegments) throw ArgError(env, true, "at most 1024 registered buffers");
  std::vector<iovec> iovs;
  std::vector<std::shared_ptr<v8::BackingStore>> pins;
  for (uint32_t i = 0; i < list.Length(); i++) {
    Bytes buf = ArgBytes(env, list.Get(i), "buffers[i]");
    iovs.push_back({buf.data, buf.length});
    pins.push_back(std::move(buf.store));
  }
  // Reading an element can run JS (an accessor): the ring may have been closed, or an op
  // queued, since the checks above.
  CheckOpen(env);
  if (!inflight_.Empty()) throw SystemError(env, EBUSY, "io_uring_register_buffers", "ops in flight");
  if (!registered_.empty()) {
    io_uring_unregister_buffers(&ring_);
    registered_.clear();
    registeredPins_.clear();
  }
  if (iovs.empty()) return Napi::Number::New(env, 0);
  int ret = io_uring_register_buffers(&ring_, iovs.data(), static_cast<unsigned>(iovs.size()));
  if (ret < 0) throw SystemError(env, -ret, "io_uring_register_buffers", std::to_string(iovs.size()) + " buffers");
  registered_ = std::move(iovs);
  registeredPins_ = std::move(pins);  // the kernel holds these pages until unregistered
  return Napi::Number::New(env, static_cast<double>(registered_.size()));
}

// close(): JS drains first; closing with ops in flight is refused rather than guessed at.
Napi::Value UringRing::Close(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!inflight_.Empty()) throw SystemError(env, EBUSY, "close", std::to_string(inflight_.Size()) + " ops in flight");
  Teardown();
  return env.Undefined();
}

Napi::Value UringRing::InFlight(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(inflight_.Size()));
}

Napi::Value UringRing::Depth(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), depth_); }

Napi::Value UringRing::KernelSubmits(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(kernelSubmits_));
}

// Moves up to one sink's worth of finished ops into the sink (no JS call); resubmits -EAGAIN
// and short transfers. Returns how many it collected.
size_t UringRing::Collect(Napi::Env env) {
  bool resubmit = false;
  size_t collected = 0;
  while (collected < sink_.Capacity()) {
    io_uring_cqe* cqe = nullptr;
    if (io_uring_peek_cqe(&ring_, &cqe) != 0 || cqe == nullptr) break;
    uint64_t data = cqe->user_data;
    int res = cqe->res;
    io_uring_cqe_seen(&ring_, cqe);
    if (data == kCancelTag) continue;
    IoOp* op = reinterpret_cast<IoOp*>(data);
    bool moving = op->kind != OpKind::Fsync;
    // -EAGAIN or a short transfer: resubmit the rest. A read that returns 0 is end of file;
    // a read at the current position (pipes, sockets) ends with the first bytes it gets.
    bool more = moving && res > 0 && op->Advance(static_cast<size_t>(res)) && !(op->IsRead() && op->offset < 0);
    if (res == -EAGAIN || more) {
      Prep(GetSqe(env), op);
      resubmit = true;
      continue;
    }
    // Cancelled (or interrupted) after earlier parts of it had moved bytes (a stream write that
    // filled a pipe, then waited for room): the short transfer that happened, as the pool
    // backend reports it, not ECANCELED (the stream's position has moved by those bytes).
    bool stoppedPartway = moving && op->done > 0 && (res == -ECANCELED || res == -EINTR);
    double result = stoppedPartway ? static_cast<double>(op->done) : res < 0 ? res : (moving ? static_cast<double>(op->done) : 0);
    inflight_.Erase(op->id);
    uint32_t id = op->id;
    IoOp::Release(op);
    sink_.Push(id, result);
    collected++;
  }
  if (resubmit) SubmitPending();
  return collected;
}

/** With DEFER_TASKRUN, turns finished ops into completions (one kernel entry); else a no-op. */
void UringRing::RunDeferred() {
  if (deferTaskrun_) io_uring_get_events(&ring_);
}

/** True when the last op finished: the poll handle stops holding the loop (Unref follows). */
bool UringRing::BecameIdle() {
  bool idle = inflight_.Empty() && refd_;
  if (idle) {
    refd_ = false;
    uv_unref(reinterpret_cast<uv_handle_t*>(poll_));
  }
  return idle;
}

void UringRing::Reap(Napi::Env env) {
  // Collect at most one sink's worth, hand it to JS, repeat: JS may close the ring in its
  // callback, so nothing touches the ring after a flush without checking open_ again.
  for (;;) {
    if (!open_) return;
    size_t collected = Collect(env);
    bool idle = BecameIdle();
    try {
      sink_.Flush(env);
    } catch (const Napi::Error&) {
      // The callback threw: the reference BecameIdle gave up still goes, or the ring is never
      // collected (OnPoll reports the exception).
      if (idle) Unref();
      throw;
    }
    if (idle) Unref();  // last: after this JS may let the object go
    if (collected < sink_.Capacity() || idle) return;
  }
}

void UringRing::OnPoll(uv_poll_t* handle, int status, int events) {
  auto* self = static_cast<UringRing*>(handle->data);
  if (self == nullptr || !self->open_) return;
  Napi::Env env = self->Env();
  Napi::HandleScope scope(env);
  try {
    // One wakeup per batch, not per completion: the kernel stops signalling the eventfd while
    // we reap (IORING_CQ_EVENTFD_DISABLED). Completions that land in between are seen by the
    // check after re-enabling; after a few rounds we yield to the loop and signal ourselves.
    for (int round = 0;; round++) {
      io_uring_cq_eventfd_toggle(&self->ring_, false);  // -EOPNOTSUPP on old kernels: harmless
      uint64_t counter;
      (void)!read(self->eventFd_, &counter, sizeof counter);  // one read zeroes the counter
      self->RunDeferred();
      self->Reap(env);
      if (!self->open_) return;
      io_uring_cq_eventfd_toggle(&self->ring_, true);
      // Deferred work queued while the eventfd was off signalled nothing, and signals nothing
      // more until it is run: run it now; what arrives after this signals again.
      self->RunDeferred();
      if (io_uring_cq_ready(&self->ring_) == 0) return;
      if (round >= 3) {
        eventfd_write(self->eventFd_, 1);
        return;
      }
    }
  } catch (const Napi::Error& e) {
    // The callback threw while the eventfd was off: turn it back on (else no later completion
    // ever wakes us) and signal what is already waiting, before the exception runs JS.
    if (self->open_) {
      io_uring_cq_eventfd_toggle(&self->ring_, true);
      self->RunDeferred();
      if (io_uring_cq_ready(&self->ring_) > 0) eventfd_write(self->eventFd_, 1);
    }
    napi_fatal_exception(env, e.Value());
  }
}

}  // namespace orbitkv
