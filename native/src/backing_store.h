// Reaching a JS ArrayBuffer's V8 backing store from an N-API value. Holding the shared_ptr keeps
// the memory alive even when JS detaches the buffer (a structuredClone transfer) and the new
// owner is collected: the kernel or a pool thread can never write into freed memory.
// N-API has no such call; a napi_value is a v8::Local<v8::Value> on Node (node's own
// v8impl::V8LocalValueFromJsValue does this copy), and the addon is built against the running
// Node's headers by node-gyp, so the layout always matches.
#pragma once
#include <napi.h>
#include <v8.h>
#include <cstring>
#include <memory>

namespace orbitkv {

inline v8::Local<v8::Value> ToV8(napi_value value) {
  v8::Local<v8::Value> local;
  static_assert(sizeof(local) == sizeof(value), "napi_value is a v8::Local");
  std::memcpy(static_cast<void*>(&local), &value, sizeof(value));
  return local;
}

inline napi_value FromV8(v8::Local<v8::Value> local) {
  napi_value value;
  std::memcpy(static_cast<void*>(&value), &local, sizeof(value));
  return value;
}

/** The backing store of an ArrayBuffer (not detached: the caller checks first). */
inline std::shared_ptr<v8::BackingStore> BackingStoreOf(Napi::ArrayBuffer buffer) {
  return ToV8(buffer).As<v8::ArrayBuffer>()->GetBackingStore();
}

}  // namespace orbitkv
