// The event loop polled without sleeping for a window after each request (serve --busy-poll-us).
//
// An idle libuv loop sleeps in epoll_wait; a request then pays the core's wake-up (in a VM, the
// vCPU's exit on HLT and its re-entry) and runs on caches that other work has had. While a uv_idle_t
// handle is started, libuv's poll timeout is zero, so the loop turns without sleeping: each turn
// runs this handle's callback (a clock read) and an epoll_wait that returns at once. The handle
// is unreferenced (it never keeps the process alive) and stops itself once the window passes.
//
//   new BusyPoll(windowNs)   windowNs in 1..10^10
//   touch()                  polls until now + windowNs (starts the handle if it is stopped)
//   stats() -> [windows, pollingNs, turns]
//   close()                  stops and closes the handle (also on GC and at the env's teardown)
#include "busy_poll.h"
#include <cmath>

namespace orbitkv {

namespace {
constexpr double kMaxWindowNs = 1e10;
}

void BusyPoll::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = DefineClass(env, "BusyPoll",
                                   {
                                       InstanceMethod<&BusyPoll::Touch>("touch"),
                                       InstanceMethod<&BusyPoll::Stats>("stats"),
                                       InstanceMethod<&BusyPoll::Close>("close"),
                                   });
  exports.Set("BusyPoll", cls);
}

BusyPoll::BusyPoll(const Napi::CallbackInfo& info) : Napi::ObjectWrap<BusyPoll>(info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(env, "windowNs must be a number");
  double window = info[0].As<Napi::Number>().DoubleValue();
  if (!std::isfinite(window) || window < 1 || window > kMaxWindowNs || window != std::floor(window)) {
    throw Napi::RangeError::New(env, "windowNs must be an integer in 1..10000000000");
  }
  windowNs_ = static_cast<uint64_t>(window);
  uv_loop_t* loop = nullptr;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok || loop == nullptr) throw Napi::Error::New(env, "no event loop");
  idle_ = new uv_idle_t;
  uv_idle_init(loop, idle_);
  idle_->data = this;
  uv_unref(reinterpret_cast<uv_handle_t*>(idle_));  // polling never keeps the process alive
}

BusyPoll::~BusyPoll() { Teardown(); }

void BusyPoll::Teardown() {
  if (idle_ == nullptr) return;
  if (polling_) EndWindow(uv_hrtime());
  uv_idle_stop(idle_);
  idle_->data = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(idle_), [](uv_handle_t* h) { delete reinterpret_cast<uv_idle_t*>(h); });
  idle_ = nullptr;
}

void BusyPoll::EndWindow(uint64_t now) {
  pollingNs_ += static_cast<double>(now - windowStart_);
  polling_ = false;
}

Napi::Value BusyPoll::Touch(const Napi::CallbackInfo& info) {
  if (idle_ == nullptr) return info.Env().Undefined();  // closed: nothing to keep polling
  uint64_t now = uv_hrtime();
  deadline_ = now + windowNs_;
  if (!polling_) {
    polling_ = true;
    windowStart_ = now;
    windows_ += 1;
    uv_idle_start(idle_, &BusyPoll::OnIdle);
  }
  return info.Env().Undefined();
}

void BusyPoll::OnIdle(uv_idle_t* handle) {
  auto* self = static_cast<BusyPoll*>(handle->data);
  if (self == nullptr) return;
  self->turns_ += 1;
  uint64_t now = uv_hrtime();
  if (now < self->deadline_) return;
  self->EndWindow(now);
  uv_idle_stop(handle);
}

Napi::Value BusyPoll::Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  double polling = pollingNs_;
  if (polling_) polling += static_cast<double>(uv_hrtime() - windowStart_);
  Napi::Array out = Napi::Array::New(env, 3);
  out.Set(uint32_t{0}, Napi::Number::New(env, windows_));
  out.Set(uint32_t{1}, Napi::Number::New(env, polling));
  out.Set(uint32_t{2}, Napi::Number::New(env, turns_));
  return out;
}

Napi::Value BusyPoll::Close(const Napi::CallbackInfo& info) {
  Teardown();
  return info.Env().Undefined();
}

void InitBusyPoll(Napi::Env env, Napi::Object exports) { BusyPoll::Init(env, exports); }

}  // namespace orbitkv
