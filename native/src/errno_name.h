// errno -> "EINVAL"-style names, through libuv (its codes are -errno on Unix).
#pragma once
#include <napi.h>
#include <uv.h>
#include <string>

namespace orbitkv {

inline const char* ErrnoName(int err) { return uv_err_name(-err); }

/** A JS Error carrying `code` (errno name), `errno` and `syscall`, thrown by native setup calls. */
inline Napi::Error SystemError(Napi::Env env, int err, const char* syscall, const std::string& what) {
  std::string message = std::string(syscall) + ": " + ErrnoName(err) + " (" + uv_strerror(-err) + ")";
  if (!what.empty()) message += ": " + what;
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("code", Napi::String::New(env, ErrnoName(err)));
  error.Set("errno", Napi::Number::New(env, err));
  error.Set("syscall", Napi::String::New(env, syscall));
  return error;
}

}  // namespace orbitkv
