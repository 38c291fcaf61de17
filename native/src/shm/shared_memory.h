// Shared memory for the Manager: memfds and owner-only files mapped MAP_SHARED into
// ArrayBuffers. A mapping lives as long as its V8 backing store: `unmapShared` detaches the
// ArrayBuffer at once, and the munmap follows when no in-flight operation still holds it.
#pragma once
#include <napi.h>

namespace orbitkv {
void InitSharedMemory(Napi::Env env, Napi::Object exports);
}
