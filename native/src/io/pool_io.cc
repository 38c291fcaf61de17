#include "io/pool_io.h"
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <cerrno>
#include <climits>
#include <string>
#include "args.h"
#include "errno_name.h"
#include "io/io_args.h"

namespace orbitkv {

void PoolIo::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = DefineClass(env, "PoolIo",
                                   {InstanceMethod<&PoolIo::Queue>("queue"),
                                    InstanceMethod<&PoolIo::QueueVec>("queueVec"),
                                    InstanceMethod<&PoolIo::QueueMany>("queueMany"),
                                    InstanceMethod<&PoolIo::Submit>("submit"),
                                    InstanceMethod<&PoolIo::Cancel>("cancel"),
                                    InstanceMethod<&PoolIo::RegisterBuffers>("registerBuffers"),
                                    InstanceMethod<&PoolIo::Close>("close"),
                                    InstanceAccessor<&PoolIo::InFlight>("inFlight"),
                                    InstanceAccessor<&PoolIo::Depth>("depth")});
  exports.Set("PoolIo", cls);
}

PoolIo::PoolIo(const Napi::CallbackInfo& info) : Napi::ObjectWrap<PoolIo>(info) {
  Napi::Env env = info.Env();
  depth_ = ParseDepth(info);
  sink_.Init(info, 1);
  napi_get_uv_event_loop(env, &loop_);
}

PoolIo::~PoolIo() {
  // Only reached when nothing is in flight (in-flight work holds a strong reference), or at
  // environment teardown, when libuv no longer runs callbacks for this object.
  for (auto& entry : inflight_) entry.second->owner = nullptr;
  inflight_.clear();
}

void PoolIo::CheckOpen(Napi::Env env) const {
  if (!open_) {
    Napi::Error e = Napi::Error::New(env, "the ring is closed");
    e.Set("code", Napi::String::New(env, "ERING_CLOSED"));
    throw e;
  }
}

PoolIo::Work::~Work() {
  if (cancelFd >= 0) close(cancelFd);
}

void PoolIo::Start(Napi::Env env, OpPtr op) {
  if (inflight_.count(op->id) != 0) throw DuplicateId(env, op->id);
  auto* work = new Work();
  work->op = std::move(op);
  work->owner = this;
  work->req.data = work;
  // uv_cancel only takes back work no thread has started, and a stream op can block in readv
  // or writev for good (a FIFO nobody feeds): such an op waits in poll() with this eventfd, so
  // a deadline, cancel or close({ cancel }) still settles it. Positioned ops on regular files
  // never wait long, and pread on a pipe is ESPIPE at once: they take no eventfd.
  if (work->op->offset < 0 && work->op->kind != OpKind::Fsync) {
    work->cancelFd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (work->cancelFd < 0) {
      int err = errno;
      delete work;
      throw SystemError(env, err, "eventfd", "cancel signal of a stream op");
    }
  }
  int ret = uv_queue_work(loop_, &work->req, &PoolIo::Execute, &PoolIo::AfterExecute);
  if (ret != 0) {
    delete work;
    throw SystemError(env, -ret, "uv_queue_work", "");
  }
  inflight_[work->op->id] = work;
  if (!refd_) {
    refd_ = true;
    Ref();
  }
}

// On a pool thread: waits until a stream op's fd is ready (or hung up, or in error: the next
// call says which) or Cancel signals. False when cancelled.
static bool WaitReady(const IoOp& op, int cancelFd) {
  pollfd fds[2] = {{op.fd, static_cast<short>(op.IsRead() ? POLLIN : POLLOUT), 0}, {cancelFd, POLLIN, 0}};
  for (;;) {
    int n = poll(fds, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    // poll itself failing: the transfer reports the fd's error.
    return n < 0 || (fds[1].revents & POLLIN) == 0;
  }
}

// Files whose transfers can wait for good: a FIFO nobody feeds, a socket, a terminal.
static bool Waits(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode));
}

// Runs on a pool thread: moves every byte, retrying EINTR/EAGAIN and short transfers.
void PoolIo::Execute(uv_work_t* req) {
  Work* work = static_cast<Work*>(req->data);
  IoOp& op = *work->op;
  if (op.kind == OpKind::Fsync) {
    work->error = fsync(op.fd) == 0 ? 0 : errno;
    return;
  }
  // A stream op that can wait never sleeps inside readv/writev (RWF_NOWAIT: a write larger
  // than a pipe's room sleeps there until the last byte went): it waits in poll() with its
  // cancel eventfd. Where the file takes no RWF_NOWAIT (EOPNOTSUPP: a named FIFO, a terminal),
  // it polls before each call, and writes at most PIPE_BUF bytes per call: what POLLOUT
  // promises room for, so the call does not sleep either.
  bool waits = work->cancelFd >= 0 && Waits(op.fd);
  int flags = waits ? RWF_NOWAIT : 0;
  // Cancelled while waiting: ECANCELED, unless bytes already moved (then the short transfer
  // that happened).
  auto cancelled = [&]() {
    if (op.done == 0) work->error = ECANCELED;
  };
  while (!op.iov.empty()) {
    if (waits && flags == 0 && !WaitReady(op, work->cancelFd)) return cancelled();
    ssize_t n;
    const iovec* iov = op.iov.data();
    int count = static_cast<int>(op.iov.size() < IOV_MAX ? op.iov.size() : IOV_MAX);
    iovec room;
    if (waits && flags == 0 && !op.IsRead()) {
      room = {op.iov[0].iov_base, op.iov[0].iov_len < PIPE_BUF ? op.iov[0].iov_len : PIPE_BUF};
      iov = &room;
      count = 1;
    }
    // Offset -1: the file's current position (preadv2/pwritev2 then act as readv/writev).
    if (op.IsRead())
      n = op.offset < 0 ? preadv2(op.fd, iov, count, -1, flags) : preadv(op.fd, iov, count, op.offset);
    else
      n = op.offset < 0 ? pwritev2(op.fd, iov, count, -1, flags) : pwritev(op.fd, iov, count, op.offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EOPNOTSUPP && flags != 0) {
        flags = 0;
        continue;
      }
      if (errno == EAGAIN) {
        if (waits && !WaitReady(op, work->cancelFd)) return cancelled();
        continue;
      }
      work->error = errno;
      return;
    }
    if (n == 0) return;  // end of file
    op.Advance(static_cast<size_t>(n));
    if (op.IsRead() && op.offset < 0) return;  // a stream read ends with the first bytes it gets
  }
}

void PoolIo::AfterExecute(uv_work_t* req, int status) {
  Work* work = static_cast<Work*>(req->data);
  PoolIo* self = work->owner;
  double result = status == UV_ECANCELED ? -ECANCELED
                  : work->error != 0    ? -work->error
                                        : static_cast<double>(work->op->done);
  uint32_t id = work->op->id;
  delete work;
  if (self == nullptr) return;
  self->inflight_.erase(id);
  Napi::Env env = self->Env();
  Napi::HandleScope scope(env);
  bool idle = self->inflight_.empty() && self->refd_;
  if (idle) self->refd_ = false;
  self->sink_.Push(id, result);
  try {
    self->sink_.Flush(env);
  } catch (const Napi::Error& e) {
    napi_fatal_exception(env, e.Value());
  }
  if (idle) self->Unref();
}

Napi::Value PoolIo::Queue(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  OpPtr op = ParseQueue(info);
  CheckOpen(env);  // as QueueVec's
  Start(env, std::move(op));
  return env.Undefined();
}

Napi::Value PoolIo::QueueVec(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  OpPtr op = ParseQueueVec(info);
  // Reading the buffers array can run JS (an accessor) that closed the backend; work started
  // now would complete into a sink that no longer has arrays.
  CheckOpen(env);
  Start(env, std::move(op));
  return env.Undefined();
}

// queueMany(start, end, table, reap, ...buffers): as UringRing's (work starts at once; never reaps).
Napi::Value PoolIo::QueueMany(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  QueueRows rows = ParseQueueRows(info);
  for (size_t i = rows.start; i < rows.end; i++) {
    try {
      OpPtr op = ParseRow(env, rows.table + i * kQueueRow, rows.Buffer(i));
      CheckOpen(env);  // as QueueVec's
      Start(env, std::move(op));
    } catch (Napi::Error& e) {
      e.Set("index", Napi::Number::New(env, static_cast<double>(i)));
      throw;
    }
  }
  return Napi::Number::New(env, 0);
}

// Work starts when queued; submit exists so both backends share one interface.
Napi::Value PoolIo::Submit(const Napi::CallbackInfo& info) {
  CheckOpen(info.Env());
  return Napi::Number::New(info.Env(), 0);
}

// cancel(id) -> true when the op had not started, or is a stream op (which stops waiting):
// it then completes with -ECANCELED (or, for a stream op that already moved bytes or was just
// finishing, with its real result).
Napi::Value PoolIo::Cancel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto it = inflight_.find(static_cast<uint32_t>(ArgInt(info, 0, "id", 0, UINT32_MAX)));
  if (it == inflight_.end()) return Napi::Boolean::New(env, false);
  Work* work = it->second;
  if (uv_cancel(reinterpret_cast<uv_req_t*>(&work->req)) == 0) return Napi::Boolean::New(env, true);
  // Running. The eventfd is closed only when AfterExecute (this thread) deletes the work.
  if (work->cancelFd < 0) return Napi::Boolean::New(env, false);
  eventfd_write(work->cancelFd, 1);
  return Napi::Boolean::New(env, true);
}

// Plain memory works for pread/pwrite: registration is accepted and has no effect.
Napi::Value PoolIo::RegisterBuffers(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  if (info.Length() < 1 || !info[0].IsArray()) throw ArgError(env, false, "buffers must be an array");
  auto list = info[0].As<Napi::Array>();
  for (uint32_t i = 0; i < list.Length(); i++) ArgBytes(env, list.Get(i), "buffers[i]");
  CheckOpen(env);  // an element's accessor may have closed it, as UringRing's
  return Napi::Number::New(env, list.Length());
}

Napi::Value PoolIo::Close(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!inflight_.empty()) throw SystemError(env, EBUSY, "close", std::to_string(inflight_.size()) + " ops in flight");
  open_ = false;
  sink_.Reset();
  return env.Undefined();
}

Napi::Value PoolIo::InFlight(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(inflight_.size()));
}

Napi::Value PoolIo::Depth(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), depth_); }

}  // namespace orbitkv
