#include "cuda/completion_queue.h"
#include <string>

namespace orbitkv::cuda {

const DriverTable& RequireDriver(Napi::Env env, const char* call);
void CheckResult(Napi::Env env, CUresult r, const char* call);

struct QueueWaiter {
  napi_deferred deferred;
  napi_threadsafe_function tsfn;
};

CompletionQueue::CompletionQueue(Napi::Env env) {
  napi_value name;
  napi_create_string_utf8(env, "orbitkv.cuda.completion", NAPI_AUTO_LENGTH, &name);
  // Unlimited queue: the driver thread never blocks or fails to post.
  napi_status s = napi_create_threadsafe_function(env, nullptr, nullptr, name, 0, 1, nullptr, nullptr, this, &CompletionQueue::OnLoop, &tsfn_);
  if (s != napi_ok) throw Napi::Error::New(env, "napi_create_threadsafe_function failed");
  napi_unref_threadsafe_function(env, tsfn_);  // only pending promises keep the process alive
}

CompletionQueue& CompletionQueue::For(Napi::Env env) {
  auto* queue = env.GetInstanceData<CompletionQueue>();
  if (queue == nullptr) {
    queue = new CompletionQueue(env);
    env.SetInstanceData<CompletionQueue>(queue);
  }
  return *queue;
}

void CompletionQueue::OnDriverThread(void* data) {
  // On the driver's callback thread: no CUDA calls allowed here, only the post.
  auto* waiter = static_cast<QueueWaiter*>(data);
  napi_call_threadsafe_function(waiter->tsfn, waiter, napi_tsfn_nonblocking);
}

void CompletionQueue::OnLoop(napi_env env, napi_value, void* context, void* data) {
  auto* waiter = static_cast<QueueWaiter*>(data);
  auto* queue = static_cast<CompletionQueue*>(context);
  if (env != nullptr) {
    napi_value undefined;
    napi_get_undefined(env, &undefined);
    napi_resolve_deferred(env, waiter->deferred, undefined);
    if (--queue->pending_ == 0) napi_unref_threadsafe_function(env, queue->tsfn_);
  }
  delete waiter;
}

Napi::Value CompletionQueue::WhenDone(Napi::Env env, CUstream stream) {
  CompletionQueue& queue = For(env);
  const DriverTable& d = RequireDriver(env, "cuLaunchHostFunc");
  napi_value promise;
  auto* waiter = new QueueWaiter{nullptr, queue.tsfn_};
  napi_create_promise(env, &waiter->deferred, &promise);
  CUresult r = d.cuLaunchHostFunc(stream, &CompletionQueue::OnDriverThread, waiter);
  if (r != CUDA_SUCCESS) {
    // Never enqueued: nothing will call back. Settle the deferred (no one holds the promise) and throw.
    napi_value undefined;
    napi_get_undefined(env, &undefined);
    napi_resolve_deferred(env, waiter->deferred, undefined);
    delete waiter;
    CheckResult(env, r, "cuLaunchHostFunc");
  }
  if (queue.pending_++ == 0) napi_ref_threadsafe_function(env, queue.tsfn_);
  return Napi::Value(env, promise);
}

size_t CompletionQueue::Pending(Napi::Env env) {
  auto* queue = env.GetInstanceData<CompletionQueue>();
  return queue == nullptr ? 0 : queue->pending_;
}

}  // namespace orbitkv::cuda
