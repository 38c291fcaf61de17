// Delivers completions to JS in batches: (id, result) pairs written into two typed arrays that
// JS holds, then one call of the JS callback with the count. Shared by both backends.
#pragma once
#include <napi.h>
#include <v8.h>
#include <cstdint>
#include <memory>

namespace orbitkv {

class CompletionSink {
 public:
  /** From arguments `first`.. of a constructor: `callback(count)`, `ids` Uint32Array and
   *  `results` Float64Array (capacity: the shorter, at least 1). Checked here. */
  void Init(const Napi::CallbackInfo& info, size_t first);
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
  /** Hands what is queued to a caller that reads the arrays itself (no callback); the count. */
  size_t Take() {
    size_t n = count_;
    count_ = 0;
    return n;
  }

 private:
  Napi::FunctionReference callback_;
  Napi::Reference<Napi::Uint32Array> ids_;
  Napi::Reference<Napi::Float64Array> results_;
  // The arrays' memory, held so a transfer of their buffers cannot free what we write into.
  std::shared_ptr<v8::BackingStore> idStore_;
  std::shared_ptr<v8::BackingStore> resultStore_;
  uint32_t* idData_ = nullptr;
  double* resultData_ = nullptr;
  size_t capacity_ = 0;
  size_t count_ = 0;
};

}  // namespace orbitkv
