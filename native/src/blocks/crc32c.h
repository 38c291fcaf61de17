// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, as iSCSI, ext4 and RocksDB use it): the
// SSE4.2 crc32 instruction where the CPU has it, a table otherwise. Streamable: pass the previous
// result as `crc` to continue a checksum over the next bytes.
#pragma once
#include <cstddef>
#include <cstdint>

namespace orbitkv {
uint32_t Crc32c(uint32_t crc, const uint8_t* data, size_t length);
/** Whether Crc32c runs on the CPU's crc32 instruction. */
bool Crc32cHardware();
}  // namespace orbitkv
