#pragma once
#include <napi.h>
namespace orbitkv {
/** populatePages (see populate.cc). */
void InitPopulate(Napi::Env env, Napi::Object exports);
}
