// UnixSocket: one connected AF_UNIX stream socket owned natively (a dup of the fd JS hands in),
// for what Node's net.Socket cannot do: SCM_RIGHTS fd passing and SO_PEERCRED. Never blocks:
// sends and receives use MSG_DONTWAIT, and readiness reaches JS through a uv_poll callback.
#pragma once
#include <napi.h>
#include <uv.h>

namespace orbitkv {

class UnixSocket : public Napi::ObjectWrap<UnixSocket> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  /** new UnixSocket(fd, onReady(readable, writable, error)): dups `fd`; the caller keeps its own. */
  explicit UnixSocket(const Napi::CallbackInfo& info);
  ~UnixSocket() override;

  /** Most fds one message carries (the kernel's SCM_MAX_FD). */
  static constexpr int kMaxFds = 253;

 private:
  Napi::Value Send(const Napi::CallbackInfo& info);
  Napi::Value Recv(const Napi::CallbackInfo& info);
  Napi::Value Peer(const Napi::CallbackInfo& info);
  Napi::Value Watch(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);
  Napi::Value Fd(const Napi::CallbackInfo& info);

  void CheckOpen(Napi::Env env) const;
  void Teardown();
  static void OnPoll(uv_poll_t* handle, int status, int events);

  int fd_ = -1;
  uv_poll_t* poll_ = nullptr;
  int events_ = 0;
  Napi::FunctionReference onReady_;
};

/** peerCredentials(fd) -> { pid, uid, gid } of a connected Unix socket (SO_PEERCRED). */
Napi::Value PeerCredentials(const Napi::CallbackInfo& info);

}  // namespace orbitkv
