#pragma once
#include <napi.h>
#include <uv.h>
#include <cstdint>

namespace orbitkv {

/**
 * Keeps the JS thread's event loop polling (epoll_wait with a zero timeout) for a window after
 * each touch(), instead of sleeping in the kernel: a request that comes within the window is
 * read on a core that never went idle. See busy_poll.cc.
 */
class BusyPoll : public Napi::ObjectWrap<BusyPoll> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  /** new BusyPoll(windowNs) */
  explicit BusyPoll(const Napi::CallbackInfo& info);
  ~BusyPoll() override;

 private:
  Napi::Value Touch(const Napi::CallbackInfo& info);
  Napi::Value Stats(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);
  static void OnIdle(uv_idle_t* handle);
  void EndWindow(uint64_t now);
  void Teardown();

  uv_idle_t* idle_ = nullptr;
  uint64_t windowNs_ = 0;
  uint64_t deadline_ = 0;
  uint64_t windowStart_ = 0;
  bool polling_ = false;
  // Totals since construction: windows opened, nanoseconds spent in them, loop turns taken in them.
  double windows_ = 0;
  double pollingNs_ = 0;
  double turns_ = 0;
};

void InitBusyPoll(Napi::Env env, Napi::Object exports);

}  // namespace orbitkv
