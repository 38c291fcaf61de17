#include "unix/unix_socket.h"
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <vector>
#include "args.h"
#include "errno_name.h"

namespace orbitkv {

void UnixSocket::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = DefineClass(env, "UnixSocket",
                                   {InstanceMethod<&UnixSocket::Send>("send"),
                                    InstanceMethod<&UnixSocket::Recv>("recv"),
                                    InstanceMethod<&UnixSocket::Peer>("peer"),
                                    InstanceMethod<&UnixSocket::Watch>("watch"),
                                    InstanceMethod<&UnixSocket::Close>("close"),
                                    InstanceAccessor<&UnixSocket::Fd>("fd")});
  exports.Set("UnixSocket", cls);
  exports.Set("peerCredentials", Napi::Function::New(env, PeerCredentials, "peerCredentials"));
}

static void CheckUnixStream(Napi::Env env, int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) throw SystemError(env, errno, "fstat", "fd " + std::to_string(fd));
  if (!S_ISSOCK(st.st_mode)) throw SystemError(env, ENOTSOCK, "fstat", "fd " + std::to_string(fd) + " is not a socket");
  int domain = 0;
  socklen_t len = sizeof domain;
  if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0) throw SystemError(env, errno, "getsockopt", "SO_DOMAIN");
  if (domain != AF_UNIX) throw SystemError(env, EAFNOSUPPORT, "getsockopt", "fd " + std::to_string(fd) + " is not an AF_UNIX socket");
}

static Napi::Object Credentials(Napi::Env env, int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) throw SystemError(env, errno, "getsockopt", "SO_PEERCRED");
  // An unconnected socket answers pid 0 and uid/gid -1: no peer to speak of.
  if (cred.pid == 0) throw SystemError(env, ENOTCONN, "getsockopt", "SO_PEERCRED: not connected");
  Napi::Object out = Napi::Object::New(env);
  out.Set("pid", Napi::Number::New(env, cred.pid));
  out.Set("uid", Napi::Number::New(env, cred.uid));
  out.Set("gid", Napi::Number::New(env, cred.gid));
  return out;
}

Napi::Value PeerCredentials(const Napi::CallbackInfo& info) {
  int fd = static_cast<int>(ArgInt(info, 0, "fd", 0, INT32_MAX));
  CheckUnixStream(info.Env(), fd);
  return Credentials(info.Env(), fd);
}

UnixSocket::UnixSocket(const Napi::CallbackInfo& info) : Napi::ObjectWrap<UnixSocket>(info) {
  Napi::Env env = info.Env();
  int fd = static_cast<int>(ArgInt(info, 0, "fd", 0, INT32_MAX));
  Napi::Function onReady = ArgFunction(info, 1, "onReady");
  CheckUnixStream(env, fd);
  fd_ = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (fd_ < 0) throw SystemError(env, errno, "fcntl", "F_DUPFD_CLOEXEC");
  // The dup shares the file description: O_NONBLOCK set here holds for the caller's fd too,
  // which Node's sockets already are.
  int flags = fcntl(fd_, F_GETFL);
  if (flags < 0 || fcntl(fd_, F_SETFL, flags | O_NONBLOCK) != 0) {
    int err = errno;
    Teardown();
    throw SystemError(env, err, "fcntl", "O_NONBLOCK");
  }
  uv_loop_t* loop = nullptr;
  napi_get_uv_event_loop(env, &loop);
  poll_ = new uv_poll_t;
  int ret = uv_poll_init(loop, poll_, fd_);
  if (ret != 0) {
    delete poll_;
    poll_ = nullptr;
    Teardown();
    throw SystemError(env, -ret, "uv_poll_init", "");
  }
  poll_->data = this;
  onReady_ = Napi::Persistent(onReady);
}

UnixSocket::~UnixSocket() { Teardown(); }

void UnixSocket::Teardown() {
  if (poll_ != nullptr) {
    uv_poll_stop(poll_);
    poll_->data = nullptr;
    uv_close(reinterpret_cast<uv_handle_t*>(poll_), [](uv_handle_t* h) { delete reinterpret_cast<uv_poll_t*>(h); });
    poll_ = nullptr;
  }
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  if (events_ != 0) {
    events_ = 0;
    Unref();  // watching held a reference so the callback's target stayed alive
  }
  onReady_.Reset();
}

void UnixSocket::CheckOpen(Napi::Env env) const {
  if (fd_ < 0) throw SystemError(env, EBADF, "unix socket", "closed");
}

// send(bytes, fds[]) -> bytes the kernel took (fds go with the first byte); -1 when it would block.
Napi::Value UnixSocket::Send(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  Bytes bytes = ArgBytes(info, 0, "bytes");
  if (info.Length() < 2 || !info[1].IsArray()) throw ArgError(env, false, "fds must be an array");
  auto list = info[1].As<Napi::Array>();
  if (list.Length() > static_cast<uint32_t>(kMaxFds)) throw ArgError(env, true, "at most 253 fds per message");
  std::vector<int> fds;
  for (uint32_t i = 0; i < list.Length(); i++) {
    Napi::Value v = list.Get(i);
    if (!v.IsNumber()) throw ArgError(env, false, "fds must be integers");
    double d = v.As<Napi::Number>().DoubleValue();
    if (!(d >= 0 && d <= INT32_MAX) || static_cast<double>(static_cast<int>(d)) != d) throw ArgError(env, true, "fds must be integers >= 0");
    fds.push_back(static_cast<int>(d));
  }
  if (bytes.length == 0) throw ArgError(env, true, "a message carries at least one byte");
  iovec iov{bytes.data, bytes.length};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  std::vector<char> control;
  if (!fds.empty()) {
    control.assign(CMSG_SPACE(sizeof(int) * fds.size()), 0);
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(cmsg), fds.data(), sizeof(int) * fds.size());
  }
  ssize_t n;
  do n = sendmsg(fd_, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return Napi::Number::New(env, -1);
    throw SystemError(env, errno, "sendmsg", std::to_string(bytes.length) + " bytes, " + std::to_string(fds.size()) + " fds");
  }
  return Napi::Number::New(env, static_cast<double>(n));
}

// recv(buffer, fdsOut Int32Array) -> [bytes, fdCount]; bytes -1 when nothing is waiting, 0 at end.
// Received fds are close-on-exec; fds beyond fdsOut's room are closed and reported as EMSGSIZE.
Napi::Value UnixSocket::Recv(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  Bytes bytes = ArgBytes(info, 0, "buffer");
  if (info.Length() < 2 || !info[1].IsTypedArray() || info[1].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array)
    throw ArgError(env, false, "fdsOut must be an Int32Array");
  auto fdsOut = info[1].As<Napi::Int32Array>();
  if (bytes.length == 0) throw ArgError(env, true, "buffer must have room for one byte");
  iovec iov{bytes.data, bytes.length};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do n = recvmsg(fd_, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      Napi::Array out = Napi::Array::New(env, 2);
      out.Set(0u, Napi::Number::New(env, -1));
      out.Set(1u, Napi::Number::New(env, 0));
      return out;
    }
    throw SystemError(env, errno, "recvmsg", "");
  }
  size_t count = 0;
  size_t room = fdsOut.ElementLength();
  bool overflow = (msg.msg_flags & MSG_CTRUNC) != 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    const unsigned char* data = CMSG_DATA(c);
    for (size_t j = 0; j < k; j++) {
      int fd;
      std::memcpy(&fd, data + j * sizeof(int), sizeof fd);
      if (count < room) fdsOut[count++] = fd;
      else {
        close(fd);
        overflow = true;
      }
    }
  }
  if (overflow) {
    for (size_t j = 0; j < count; j++) close(fdsOut[j]);
    throw SystemError(env, EMSGSIZE, "recvmsg", "more fds than the receiver has room for (they were closed)");
  }
  Napi::Array out = Napi::Array::New(env, 2);
  out.Set(0u, Napi::Number::New(env, static_cast<double>(n)));
  out.Set(1u, Napi::Number::New(env, static_cast<double>(count)));
  return out;
}

Napi::Value UnixSocket::Peer(const Napi::CallbackInfo& info) {
  CheckOpen(info.Env());
  return Credentials(info.Env(), fd_);
}

// watch(readable, writable): which readiness to report through onReady; none stops watching.
Napi::Value UnixSocket::Watch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  int events = (info[0].ToBoolean() ? UV_READABLE | UV_DISCONNECT : 0) | (info[1].ToBoolean() ? UV_WRITABLE : 0);
  if (events == events_) return env.Undefined();
  int ret = events == 0 ? uv_poll_stop(poll_) : uv_poll_start(poll_, events, &UnixSocket::OnPoll);
  if (ret != 0) throw SystemError(env, -ret, "uv_poll_start", "");
  if (events_ == 0 && events != 0) Ref();
  if (events_ != 0 && events == 0) Unref();
  events_ = events;
  return env.Undefined();
}

Napi::Value UnixSocket::Close(const Napi::CallbackInfo& info) {
  Teardown();
  return info.Env().Undefined();
}

Napi::Value UnixSocket::Fd(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), fd_); }

void UnixSocket::OnPoll(uv_poll_t* handle, int status, int events) {
  auto* self = static_cast<UnixSocket*>(handle->data);
  if (self == nullptr || self->onReady_.IsEmpty()) return;
  Napi::Env env = self->Env();
  Napi::HandleScope scope(env);
  Napi::AsyncContext context(env, "orbitkv.unix.ready");
  try {
    self->onReady_.MakeCallback(env.Global(),
                                {Napi::Boolean::New(env, (events & (UV_READABLE | UV_DISCONNECT)) != 0),
                                 Napi::Boolean::New(env, (events & UV_WRITABLE) != 0),
                                 status < 0 ? Napi::Value(Napi::String::New(env, ErrnoName(-status))) : env.Null()},
                                context);
  } catch (const Napi::Error& e) {
    napi_fatal_exception(env, e.Value());
  }
}

}  // namespace orbitkv
