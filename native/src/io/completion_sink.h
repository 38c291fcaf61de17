// Delivers completions to JS in batches: (id, result) pairs written into two typed arrays that
// JS holds, then one call of the JS callback with the count. Shared by both backends.
#pragma once
#include <napi.h>
#include <cstdint>

namespace orbitkv {

class CompletionSink {
 public:
  /** `callback(count)`; `ids` Uint32Array and `results` Float64Array of the same length. */
  void Init(Napi::Env env, Napi::Function callback, Napi::Uint32Array ids, Napi::Float64Array results);
  void Reset();
  /** Queues one completion; the caller flushes before Capacity() is exceeded. */
  void Push(uint32_t id, double result) {
    idData_[count_] = id;
    resultData_[count_] = result;
    count_++;
  }
  /** Calls JS with what is queued (inside a handle scope and async context). */
  void Flush(Napi::Env env);
  size_t Capacity() const { return capacity_; }

 private:
  Napi::FunctionReference callback_;
  Napi::Reference<Napi::Uint32Array> ids_;
  Napi::Reference<Napi::Float64Array> results_;
  uint32_t* idData_ = nullptr;
  double* resultData_ = nullptr;
  size_t capacity_ = 0;
  size_t count_ = 0;
};

}  // namespace orbitkv
