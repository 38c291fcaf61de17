#pragma once
#include <napi.h>
namespace orbitkv::cuda {
/** Adds `exports.cuda`: thin wrappers over driver calls; handles travel as bigints. */
void InitCuda(Napi::Env env, Napi::Object exports);
}
