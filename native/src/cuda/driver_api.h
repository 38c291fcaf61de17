// The slice of the CUDA driver API this addon calls, declared here so nothing CUDA is needed to
// build: opaque handles, the few structs passed by value or pointer, and one X-macro listing
// every entry point with its signature. Values follow cuda.h (CUDA 12/13).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace orbitkv::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUgraph = struct CUgraph_st*;
using CUgraphExec = struct CUgraphExec_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUmemGenericAllocationHandle = unsigned long long;
using CUhostFn = void (*)(void* userData);

struct CUipcMemHandle {
  char reserved[64];
};
struct CUmemLocation {
  int type;  // CU_MEM_LOCATION_TYPE_DEVICE = 1
  int id;
};
struct CUmemAllocationProp {
  int type;                  // CU_MEM_ALLOCATION_TYPE_PINNED = 1
  int requestedHandleTypes;  // CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1
  CUmemLocation location;
  void* win32HandleMetaData;
  struct {
    unsigned char compressionType;
    unsigned char gpuDirectRDMACapable;
    unsigned short usage;
    unsigned char reserved[4];
  } allocFlags;
};
struct CUmemAccessDesc {
  CUmemLocation location;
  int flags;  // CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3
};

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;
constexpr unsigned CU_MEMHOSTALLOC_PORTABLE = 0x01;
constexpr unsigned CU_MEMHOSTALLOC_DEVICEMAP = 0x02;
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x01;
constexpr unsigned CU_EVENT_DEFAULT = 0x0;
constexpr unsigned CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0x1;
constexpr int CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1;
constexpr int CU_MEM_ALLOCATION_TYPE_PINNED = 1;
constexpr int CU_MEM_LOCATION_TYPE_DEVICE = 1;
constexpr int CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3;
constexpr int CU_STREAM_CAPTURE_MODE_RELAXED = 2;

// X(name exported by cuGetProcAddress, fallback dlsym name, return, (params))
#define ORBITKV_CUDA_FUNCTIONS(X)                                                                              \
  X(cuInit, "cuInit", (unsigned int flags))                                                                    \
  X(cuDriverGetVersion, "cuDriverGetVersion", (int* version))                                                  \
  X(cuGetErrorName, "cuGetErrorName", (CUresult error, const char** name))                                     \
  X(cuGetErrorString, "cuGetErrorString", (CUresult error, const char** text))                                 \
  X(cuDeviceGetCount, "cuDeviceGetCount", (int* count))                                                        \
  X(cuDeviceGet, "cuDeviceGet", (CUdevice * device, int ordinal))                                              \
  X(cuDeviceGetName, "cuDeviceGetName", (char* name, int len, CUdevice dev))                                   \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", (size_t * bytes, CUdevice dev))                                   \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", (int* value, int attrib, CUdevice dev))                      \
  X(cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId", (char* id, int len, CUdevice dev))                             \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext * ctx, CUdevice dev))                     \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext ctx))                                                       \
  X(cuCtxSynchronize, "cuCtxSynchronize", ())                                                                  \
  X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr * dptr, size_t bytes))                                           \
  X(cuMemFree, "cuMemFree_v2", (CUdeviceptr dptr))                                                             \
  X(cuMemsetD8Async, "cuMemsetD8Async", (CUdeviceptr dst, unsigned char value, size_t n, CUstream stream))     \
  X(cuMemHostAlloc, "cuMemHostAlloc", (void** pp, size_t bytes, unsigned int flags))                           \
  X(cuMemFreeHost, "cuMemFreeHost", (void* p))                                                                 \
  X(cuMemHostRegister, "cuMemHostRegister_v2", (void* p, size_t bytes, unsigned int flags))                    \
  X(cuMemHostUnregister, "cuMemHostUnregister", (void* p))                                                     \
  X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", (CUdeviceptr * dptr, void* p, unsigned int f))  \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", (CUdeviceptr dst, const void* src, size_t n, CUstream stream))  \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", (void* dst, CUdeviceptr src, size_t n, CUstream stream))        \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream stream))  \
  X(cuStreamCreate, "cuStreamCreate", (CUstream * stream, unsigned int flags))                                 \
  X(cuStreamDestroy, "cuStreamDestroy_v2", (CUstream stream))                                                  \
  X(cuStreamSynchronize, "cuStreamSynchronize", (CUstream stream))                                             \
  X(cuStreamQuery, "cuStreamQuery", (CUstream stream))                                                         \
  X(cuStreamWaitEvent, "cuStreamWaitEvent", (CUstream stream, CUevent event, unsigned int flags))              \
  X(cuEventCreate, "cuEventCreate", (CUevent * event, unsigned int flags))                                     \
  X(cuEventDestroy, "cuEventDestroy_v2", (CUevent event))                                                      \
  X(cuEventRecord, "cuEventRecord", (CUevent event, CUstream stream))                                          \
  X(cuEventSynchronize, "cuEventSynchronize", (CUevent event))                                                 \
  X(cuEventQuery, "cuEventQuery", (CUevent event))                                                             \
  X(cuEventElapsedTime, "cuEventElapsedTime", (float* ms, CUevent start, CUevent end))                         \
  X(cuStreamWaitValue32, "cuStreamWaitValue32_v2", (CUstream s, CUdeviceptr addr, uint32_t value, unsigned f)) \
  X(cuStreamWriteValue32, "cuStreamWriteValue32_v2", (CUstream s, CUdeviceptr addr, uint32_t value, unsigned f)) \
  X(cuStreamBeginCapture, "cuStreamBeginCapture_v2", (CUstream stream, int mode))                              \
  X(cuStreamEndCapture, "cuStreamEndCapture", (CUstream stream, CUgraph * graph))                              \
  X(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", (CUgraphExec * exec, CUgraph g, unsigned long long f)) \
  X(cuGraphLaunch, "cuGraphLaunch", (CUgraphExec exec, CUstream stream))                                       \
  X(cuGraphExecDestroy, "cuGraphExecDestroy", (CUgraphExec exec))                                              \
  X(cuGraphDestroy, "cuGraphDestroy", (CUgraph graph))                                                         \
  X(cuIpcGetMemHandle, "cuIpcGetMemHandle", (CUipcMemHandle * handle, CUdeviceptr dptr))                       \
  X(cuIpcOpenMemHandle, "cuIpcOpenMemHandle_v2", (CUdeviceptr * dptr, CUipcMemHandle handle, unsigned int f))  \
  X(cuIpcCloseMemHandle, "cuIpcCloseMemHandle", (CUdeviceptr dptr))                                            \
  X(cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity", (size_t * g, const CUmemAllocationProp* p, int option)) \
  X(cuMemCreate, "cuMemCreate", (CUmemGenericAllocationHandle * h, size_t size, const CUmemAllocationProp* p, unsigned long long f)) \
  X(cuMemExportToShareableHandle, "cuMemExportToShareableHandle", (void* out, CUmemGenericAllocationHandle h, int type, unsigned long long f)) \
  X(cuMemImportFromShareableHandle, "cuMemImportFromShareableHandle", (CUmemGenericAllocationHandle * h, void* os, int type)) \
  X(cuMemAddressReserve, "cuMemAddressReserve", (CUdeviceptr * p, size_t size, size_t align, CUdeviceptr addr, unsigned long long f)) \
  X(cuMemAddressFree, "cuMemAddressFree", (CUdeviceptr p, size_t size))                                        \
  X(cuMemMap, "cuMemMap", (CUdeviceptr p, size_t size, size_t offset, CUmemGenericAllocationHandle h, unsigned long long f)) \
  X(cuMemUnmap, "cuMemUnmap", (CUdeviceptr p, size_t size))                                                    \
  X(cuMemSetAccess, "cuMemSetAccess", (CUdeviceptr p, size_t size, const CUmemAccessDesc* desc, size_t count)) \
  X(cuMemRelease, "cuMemRelease", (CUmemGenericAllocationHandle h))                                            \
  X(cuModuleLoadData, "cuModuleLoadData", (CUmodule * module, const void* image))                              \
  X(cuModuleGetFunction, "cuModuleGetFunction", (CUfunction * fn, CUmodule module, const char* name))          \
  X(cuLaunchHostFunc, "cuLaunchHostFunc", (CUstream stream, CUhostFn fn, void* userData))                     \
  X(cuLaunchKernel, "cuLaunchKernel", (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared, CUstream stream, void** params, void** extra))

struct DriverTable {
#define ORBITKV_CUDA_FIELD(name, sym, params) CUresult (*name) params = nullptr;
  ORBITKV_CUDA_FUNCTIONS(ORBITKV_CUDA_FIELD)
#undef ORBITKV_CUDA_FIELD
};

/** Loads libcuda.so.1 and runs cuInit(0) once. Returns nullptr, and `reason`, when it cannot. */
const DriverTable* LoadDriver(std::string* reason);

}  // namespace orbitkv::cuda
