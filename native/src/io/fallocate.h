#pragma once
#include <napi.h>
namespace orbitkv {
/** fallocateFile (see fallocate.cc). */
void InitFallocate(Napi::Env env, Napi::Object exports);
}
