#include "io/completion_sink.h"
#include <string>
#include "args.h"

namespace orbitkv {

static Napi::TypedArray ArgTyped(const Napi::CallbackInfo& info, size_t i, napi_typedarray_type type, const char* name) {
  Napi::Env env = info.Env();
  if (info.Length() <= i || !info[i].IsTypedArray() || info[i].As<Napi::TypedArray>().TypedArrayType() != type)
    throw ArgError(env, false, std::string(name) + (type == napi_uint32_array ? " must be a Uint32Array" : " must be a Float64Array"));
  auto array = info[i].As<Napi::TypedArray>();
  // Init keeps the array's address and length for the backend's lifetime: a buffer JS could
  // shrink under them is refused (completions would be written past its end).
  if (BackingStoreOf(array.ArrayBuffer())->IsResizableByUserJavaScript())
    throw ArgError(env, false, std::string(name) + " must not be on a resizable ArrayBuffer");
  if (array.ElementLength() == 0) throw ArgError(env, true, std::string(name) + " must hold at least one completion");
  return array;
}

void CompletionSink::Init(const Napi::CallbackInfo& info, size_t first) {
  Napi::Function callback = ArgFunction(info, first, "onComplete");
  auto ids = ArgTyped(info, first + 1, napi_uint32_array, "ids").As<Napi::Uint32Array>();
  auto results = ArgTyped(info, first + 2, napi_float64_array, "results").As<Napi::Float64Array>();
  idStore_ = BackingStoreOf(ids.ArrayBuffer());
  resultStore_ = BackingStoreOf(results.ArrayBuffer());
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
  idStore_.reset();
  resultStore_.reset();
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
