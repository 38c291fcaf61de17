#include "io/completion_sink.h"

namespace orbitkv {

void CompletionSink::Init(Napi::Env env, Napi::Function callback, Napi::Uint32Array ids, Napi::Float64Array results) {
  callback_ = Napi::Persistent(callback);
  ids_ = Napi::Persistent(ids);
  results_ = Napi::Persistent(results);
  idData_ = ids.Data();
  resultData_ = results.Data();
  capacity_ = ids.ElementLength() < results.ElementLength() ? ids.ElementLength() : results.ElementLength();
}

void CompletionSink::Reset() {
  callback_.Reset();
  ids_.Reset();
  results_.Reset();
  idData_ = nullptr;
  resultData_ = nullptr;
  capacity_ = 0;
}

void CompletionSink::Flush(Napi::Env env) {
  if (count_ == 0 || callback_.IsEmpty()) return;
  Napi::HandleScope scope(env);
  size_t n = count_;
  count_ = 0;
  Napi::AsyncContext context(env, "orbitkv.io.complete");
  // MakeCallback drains the microtask queue afterwards, so awaiting code runs promptly.
  callback_.MakeCallback(env.Global(), {Napi::Number::New(env, static_cast<double>(n))}, context);
}

}  // namespace orbitkv
