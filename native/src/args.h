// Every argument check of the raw binding in one place. The TypeScript side validates first;
// these make a wrong call straight into the addon a JS TypeError/RangeError with a `code`,
// never undefined behaviour.
#pragma once
#include <napi.h>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include "backing_store.h"

namespace orbitkv {

inline Napi::Error ArgError(Napi::Env env, bool range, const std::string& what) {
  Napi::Error e = range ? Napi::Error(Napi::RangeError::New(env, what)) : Napi::Error(Napi::TypeError::New(env, what));
  e.Set("code", Napi::String::New(env, range ? "ERR_OUT_OF_RANGE" : "ERR_INVALID_ARG_TYPE"));
  return e;
}

/** CheckInt's refusal (out of line: the checks of every queued op stay small). */
[[noreturn, gnu::noinline, gnu::cold]] inline void RefuseInt(Napi::Env env, double v, const char* name, int64_t min, int64_t max) {
  if (!std::isfinite(v) || std::floor(v) != v) throw ArgError(env, true, std::string(name) + " must be an integer");
  throw ArgError(env, true, std::string(name) + " must be in " + std::to_string(min) + ".." + std::to_string(max));
}

/** A number already read (a typed-array row, an argument) as an integer in [min, max]. */
inline int64_t CheckInt(Napi::Env env, double v, const char* name, int64_t min, int64_t max) {
  // In range first (false for NaN), so the cast is defined; then whole. Both limits are within
  // +-2^53 wherever this is called, so they convert to double exactly.
  if (v >= static_cast<double>(min) && v <= static_cast<double>(max)) {
    auto i = static_cast<int64_t>(v);
    if (static_cast<double>(i) == v) return i;
  }
  RefuseInt(env, v, name, min, max);
}

/** An integer argument in [min, max]. */
inline int64_t ArgInt(const Napi::CallbackInfo& info, size_t i, const char* name, int64_t min, int64_t max) {
  Napi::Env env = info.Env();
  if (info.Length() <= i || !info[i].IsNumber()) throw ArgError(env, false, std::string(name) + " must be a number");
  return CheckInt(env, info[i].As<Napi::Number>().DoubleValue(), name, min, max);
}

/** A function argument. */
inline Napi::Function ArgFunction(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (info.Length() <= i || !info[i].IsFunction()) throw ArgError(info.Env(), false, std::string(name) + " must be a function");
  return info[i].As<Napi::Function>();
}

/** A byte view pinned for native use: `store` keeps the memory alive even if JS detaches it. */
struct Bytes {
  uint8_t* data = nullptr;
  size_t length = 0;
  std::shared_ptr<v8::BackingStore> store;
};

/** A Uint8Array (or Buffer) that is not detached. Read through V8 at once (the hot path of every
 *  queued op): one type check, then the view's buffer, offset and length without further calls. */
inline Bytes ArgBytes(Napi::Env env, Napi::Value value, const char* name) {
  v8::Local<v8::Value> local = value.IsEmpty() ? v8::Local<v8::Value>() : ToV8(value);
  if (local.IsEmpty() || !local->IsUint8Array()) throw ArgError(env, false, std::string(name) + " must be a Uint8Array");
  v8::Local<v8::Uint8Array> view = local.As<v8::Uint8Array>();
  v8::Local<v8::ArrayBuffer> buffer = view->Buffer();  // moves an on-heap array's bytes off the heap first
  if (buffer->WasDetached()) {
    Napi::Error e = Napi::TypeError::New(env, std::string(name) + " is detached (its ArrayBuffer was transferred)");
    e.Set("code", Napi::String::New(env, "ERR_BUFFER_DETACHED"));
    throw e;
  }
  Bytes bytes;
  bytes.store = buffer->GetBackingStore();
  // A resizable buffer can shrink (its pages decommitted) while the kernel or a pool thread
  // still writes through the pointer taken here, and grow back with those bytes in it: the
  // pin holds the reservation, not the length.
  if (bytes.store->IsResizableByUserJavaScript()) throw ArgError(env, false, std::string(name) + " must not be on a resizable ArrayBuffer");
  bytes.data = static_cast<uint8_t*>(buffer->Data()) + view->ByteOffset();
  bytes.length = view->ByteLength();
  return bytes;
}

inline Bytes ArgBytes(const Napi::CallbackInfo& info, size_t i, const char* name) {
  return ArgBytes(info.Env(), info.Length() > i ? info[i] : info.Env().Undefined(), name);
}

}  // namespace orbitkv
