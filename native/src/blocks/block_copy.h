#pragma once
#include <napi.h>
namespace orbitkv {
/** crc32c, crc32cHardware and copyBlocks (see block_copy.cc). */
void InitBlockCopy(Napi::Env env, Napi::Object exports);
}
