#pragma once
#include <napi.h>
namespace orbitkv {
/** crc32c, crc32cHardware, copyBlocks (see block_copy.cc) and populatePages (populate.cc). */
void InitBlockCopy(Napi::Env env, Napi::Object exports);
}
