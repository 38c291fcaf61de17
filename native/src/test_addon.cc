// orbitkv_native_test: entry points only specs load (never the production addon): a seccomp
// hook that refuses io_uring_setup the way container profiles do.
#include <napi.h>
#include "sandbox.h"

static Napi::Object InitModule(Napi::Env env, Napi::Object exports) {
  orbitkv::InitSandbox(env, exports);
  return exports;
}

NODE_API_MODULE(orbitkv_native_test, InitModule)
