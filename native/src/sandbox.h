#pragma once
#include <napi.h>
namespace orbitkv {
void InitSandbox(Napi::Env env, Napi::Object exports);
}
