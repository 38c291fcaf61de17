#pragma once
#include <napi.h>
namespace orbitkv {
void InitAlignedBuffer(Napi::Env env, Napi::Object exports);
}
