/**
 * The native module's public surface: direct I/O rings (io_uring or the thread pool), aligned
 * buffers, capability probes, and the CUDA driver. Loading is lazy: importing this file loads
 * no addon until a function needs it.
 */
export { addonPath, nativeAvailable } from './lib/binding.js';
export { adjustExternalMemory, allocAligned, bufferAddress, liveNativeOps } from './lib/memory.js';
export { openFile, DIRECT_ALIGNMENT, type DirectFile, type OpenOptions, type CloseOptions } from './lib/direct-file.js';
export { IoRing, openRing, type CancelOutcome, type IoBackendName, type IoRequest, type OpCallback, type OpOptions, type RingOptions, type RingStats } from './lib/io-ring.js';
export {
  CancelledError,
  DeadlineExceededError,
  CudaError,
  CudaUnavailableError,
  DirectIoUnavailableError,
  IoError,
  IoUringUnavailableError,
  NativeUnavailableError,
  RingClosedError,
  SystemCallError,
  PeerRefusedError,
  ChannelProtocolError,
  ChannelClosedError,
} from './lib/errors.js';
export { FdChannel, peerCredentials, MAX_FDS_PER_MESSAGE, type ChannelMessage, type ChannelOptions, type PeerCredentials } from './lib/fd-channel.js';
export { createMemfd, openSharedFile, mapShared, unmapShared, liveMappings, type MapOptions } from './lib/shared-memory.js';
export { coalesceRuns, type CopyRun } from './lib/copy-runs.js';
export {
  cuda,
  cudaStatus,
  exportVmm,
  CapturedGraph,
  CudaEvent,
  CudaStream,
  DeviceMemory,
  Gatherer,
  HostMemory,
  liveCudaObjects,
  livePinnedBuffers,
  DEVICE_ATTRIBUTE,
  WAIT_VALUE,
  type CudaDeviceInfo,
} from './lib/cuda.js';
export { probeCapabilities, type Capability, type CapabilityReport } from './lib/capabilities.js';
export { splitRuns } from './lib/copy-runs.js';
export { copyBlocks, crc32c, crc32cHardware, populatePages, type CopyRange } from './lib/block-copy.js';
export { fallocateFile } from './lib/fallocate.js';
export { BusyPoll, BUSY_POLL_MAX_NS, type BusyPollStats } from './lib/busy-poll.js';
