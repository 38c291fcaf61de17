// CompletionQueue: promises that settle when a CUDA stream reaches a point, without blocking
// the event loop. cuLaunchHostFunc runs a host function on the driver's callback thread once
// the work before it finished; that function only posts to a thread-safe function, whose
// callback resolves the promise on the JS thread. One queue per Node environment.
#pragma once
#include <napi.h>
#include "cuda/driver_api.h"

namespace orbitkv::cuda {

class CompletionQueue {
 public:
  /** A promise resolved when everything enqueued on `stream` so far has finished. */
  static Napi::Value WhenDone(Napi::Env env, CUstream stream);
  /** Promises still waiting (specs and leak checks). */
  static size_t Pending(Napi::Env env);

 private:
  struct Waiter {
    napi_deferred deferred;
  };
  explicit CompletionQueue(Napi::Env env);
  static CompletionQueue& For(Napi::Env env);
  static void OnDriverThread(void* data);
  static void OnLoop(napi_env env, napi_value js, void* context, void* data);

  napi_threadsafe_function tsfn_ = nullptr;
  size_t pending_ = 0;
};

}  // namespace orbitkv::cuda
