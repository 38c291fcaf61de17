// Thin wrappers over the CUDA driver. Every call checks its CUresult and throws an Error whose
// `code` is the CUresult name and `call` the driver function; without a driver every call
// throws code ECUDA_UNAVAILABLE with the reason. Lifetimes and policy live in native/lib/cuda.
#include "cuda/cuda_binding.h"
#include <unistd.h>
#include <atomic>
#include <mutex>
#include <unordered_map>
#include <cstring>
#include <string>
#include <vector>
#include "cuda/driver_api.h"
#include "cuda/completion_queue.h"
#include "cuda/gather_ptx.h"
#include "owned_memory.h"

namespace orbitkv::cuda {

static const DriverTable& Drv(Napi::Env env, const char* call) {
  std::string reason;
  const DriverTable* t = LoadDriver(&reason);
  if (t == nullptr) {
    Napi::Error e = Napi::Error::New(env, reason);
    e.Set("code", Napi::String::New(env, "ECUDA_UNAVAILABLE"));
    e.Set("call", Napi::String::New(env, call));
    throw e;
  }
  return *t;
}

static void Check(Napi::Env env, CUresult r, const char* call) {
  if (r == CUDA_SUCCESS) return;
  const DriverTable& d = Drv(env, call);
  const char* name = nullptr;
  const char* text = nullptr;
  d.cuGetErrorName(r, &name);
  d.cuGetErrorString(r, &text);
  std::string code = name != nullptr ? name : "CUDA_ERROR_" + std::to_string(r);
  Napi::Error e = Napi::Error::New(env, std::string(call) + ": " + code + (text != nullptr ? std::string(" (") + text + ")" : ""));
  e.Set("code", Napi::String::New(env, code));
  e.Set("call", Napi::String::New(env, call));
  throw e;
}

const DriverTable& RequireDriver(Napi::Env env, const char* call) { return Drv(env, call); }
void CheckResult(Napi::Env env, CUresult r, const char* call) { Check(env, r, call); }

#define CALL(fn, ...) Check(env, Drv(env, #fn).fn(__VA_ARGS__), #fn)

static uint64_t U64(const Napi::Value& v) {
  bool lossless = true;
  if (v.IsBigInt()) return v.As<Napi::BigInt>().Uint64Value(&lossless);
  return static_cast<uint64_t>(v.As<Napi::Number>().Int64Value());
}
template <typename T>
static T Handle(const Napi::Value& v) {
  return reinterpret_cast<T>(static_cast<uintptr_t>(U64(v)));
}
static Napi::BigInt Big(Napi::Env env, uint64_t v) { return Napi::BigInt::New(env, v); }
template <typename T>
static Napi::BigInt BigPtr(Napi::Env env, T p) {
  return Big(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)));
}

static Napi::Value Status(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string reason;
  const DriverTable* d = LoadDriver(&reason);
  Napi::Object o = Napi::Object::New(env);
  o.Set("available", d != nullptr);
  o.Set("reason", reason);
  if (d != nullptr) {
    int version = 0;
    d->cuDriverGetVersion(&version);
    o.Set("driverVersion", version);
  }
  return o;
}

static Napi::Value DeviceCount(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int n = 0;
  CALL(cuDeviceGetCount, &n);
  return Napi::Number::New(env, n);
}

static Napi::Value DeviceInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUdevice dev;
  CALL(cuDeviceGet, &dev, info[0].As<Napi::Number>().Int32Value());
  char name[256] = {0};
  char bus[64] = {0};
  size_t mem = 0;
  CALL(cuDeviceGetName, name, sizeof name, dev);
  CALL(cuDeviceGetPCIBusId, bus, sizeof bus, dev);
  CALL(cuDeviceTotalMem, &mem, dev);
  Napi::Object o = Napi::Object::New(env);
  o.Set("name", name);
  o.Set("pciBusId", bus);
  o.Set("totalMemory", static_cast<double>(mem));
  // Attributes by number (cuda.h CUdevice_attribute): 75/76 compute capability, 16 SMs,
  // 41 unified addressing, 92 stream memory operations (CAN_USE_STREAM_MEM_OPS_V1).
  Napi::Array attrs = info[1].As<Napi::Array>();
  Napi::Object values = Napi::Object::New(env);
  for (uint32_t i = 0; i < attrs.Length(); i++) {
    int attr = attrs.Get(i).As<Napi::Number>().Int32Value();
    int value = 0;
    CUresult r = Drv(env, "cuDeviceGetAttribute").cuDeviceGetAttribute(&value, attr, dev);
    values.Set(std::to_string(attr), r == CUDA_SUCCESS ? Napi::Value(Napi::Number::New(env, value)) : env.Null());
  }
  o.Set("attributes", values);
  return o;
}

static Napi::Value UseDevice(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUdevice dev;
  CUcontext ctx;
  CALL(cuDeviceGet, &dev, info[0].As<Napi::Number>().Int32Value());
  CALL(cuDevicePrimaryCtxRetain, &ctx, dev);
  CALL(cuCtxSetCurrent, ctx);
  return env.Undefined();
}

static Napi::Value MemAlloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUdeviceptr p = 0;
  CALL(cuMemAlloc, &p, static_cast<size_t>(U64(info[0])));
  return Big(env, p);
}
static Napi::Value MemFree(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuMemFree, U64(info[0]));
  return env.Undefined();
}
static Napi::Value MemsetAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuMemsetD8Async, U64(info[0]), static_cast<unsigned char>(info[1].As<Napi::Number>().Uint32Value()),
       static_cast<size_t>(U64(info[2])), Handle<CUstream>(info[3]));
  return env.Undefined();
}

static Napi::Value HostAlloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  void* p = nullptr;
  CALL(cuMemHostAlloc, &p, static_cast<size_t>(U64(info[0])), CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  return BigPtr(env, p);
}
static Napi::Value HostFree(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuMemFreeHost, Handle<void*>(info[0]));
  return env.Undefined();
}
// Pinned memory owned by its Buffer (see owned_memory.h): returned to the driver by hostRelease
// when no op holds it, else by the Buffer's finalizer once the last op that does is reaped. The
// driver call runs on the JS thread (Node calls external-buffer finalizers there), where the
// context is current.
static void FreePinned(void* data) {
  const DriverTable* d = LoadDriver(nullptr);
  if (d != nullptr) d->cuMemFreeHost(data);
}
static OwnedMemoryKind pinnedKind{"hostAllocBuffer", FreePinned};

// hostAllocBuffer(size) -> Buffer over new pinned, device-mapped memory.
static Napi::Value HostAllocBuffer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t size = static_cast<size_t>(U64(info[0]));
  void* p = nullptr;
  CALL(cuMemHostAlloc, &p, size, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  return NewOwnedBuffer(env, p, size, &pinnedKind);
}

// hostRelease(buffer) -> 'freed' | 'deferred' | 'detached': detaches the buffer (no view can
// reach the memory) and frees it now, or after the I/O op still holding it is reaped.
static Napi::Value HostRelease(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  switch (ReleaseOwned(env, info.Length() > 0 ? info[0] : env.Undefined(), &pinnedKind)) {
    case ReleaseOutcome::Freed:
      return Napi::String::New(env, "freed");
    case ReleaseOutcome::Deferred:
      return Napi::String::New(env, "deferred");
    case ReleaseOutcome::AlreadyDetached:
      break;
  }
  return Napi::String::New(env, "detached");
}

static Napi::Value LivePinned(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(pinnedKind.live.load()));
}

static Napi::Value HostRegister(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuMemHostRegister, Handle<void*>(info[0]), static_cast<size_t>(U64(info[1])), CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  return env.Undefined();
}
static Napi::Value HostUnregister(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuMemHostUnregister, Handle<void*>(info[0]));
  return env.Undefined();
}
static Napi::Value HostDevicePointer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUdeviceptr d = 0;
  CALL(cuMemHostGetDevicePointer, &d, Handle<void*>(info[0]), 0);
  return Big(env, d);
}
// hostView(ptr, bytes): a Buffer over pinned memory; the TS owner frees the memory and drops it.
static Napi::Value HostView(const Napi::CallbackInfo& info) {
  return Napi::Buffer<uint8_t>::New(info.Env(), Handle<uint8_t*>(info[0]), static_cast<size_t>(U64(info[1])));
}

// copyRuns(kind, dstBase, srcBase, runs: Float64Array [dstOff, srcOff, len]*, count, stream)
// kind 0 host->device, 1 device->host, 2 device->device. One N-API call per batch.
static Napi::Value CopyRuns(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int kind = info[0].As<Napi::Number>().Int32Value();
  uint64_t dst = U64(info[1]);
  uint64_t src = U64(info[2]);
  Napi::Float64Array runs = info[3].As<Napi::Float64Array>();
  size_t count = static_cast<size_t>(info[4].As<Napi::Number>().Int64Value());
  CUstream stream = Handle<CUstream>(info[5]);
  const DriverTable& d = Drv(env, "copyRuns");
  const double* r = runs.Data();
  if (count * 3 > runs.ElementLength()) throw Napi::RangeError::New(env, "runs array shorter than count");
  for (size_t i = 0; i < count; i++) {
    uint64_t to = dst + static_cast<uint64_t>(r[3 * i]);
    uint64_t from = src + static_cast<uint64_t>(r[3 * i + 1]);
    size_t n = static_cast<size_t>(r[3 * i + 2]);
    if (kind == 0) Check(env, d.cuMemcpyHtoDAsync(to, reinterpret_cast<const void*>(from), n, stream), "cuMemcpyHtoDAsync");
    else if (kind == 1) Check(env, d.cuMemcpyDtoHAsync(reinterpret_cast<void*>(to), from, n, stream), "cuMemcpyDtoHAsync");
    else Check(env, d.cuMemcpyDtoDAsync(to, from, n, stream), "cuMemcpyDtoDAsync");
  }
  return env.Undefined();
}

static Napi::Value StreamCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUstream s = nullptr;
  CALL(cuStreamCreate, &s, CU_STREAM_NON_BLOCKING);
  return BigPtr(env, s);
}
static Napi::Value StreamDestroy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuStreamDestroy, Handle<CUstream>(info[0]));
  return env.Undefined();
}
static Napi::Value StreamSynchronize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuStreamSynchronize, Handle<CUstream>(info[0]));
  return env.Undefined();
}
static Napi::Value StreamQuery(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUresult r = Drv(env, "cuStreamQuery").cuStreamQuery(Handle<CUstream>(info[0]));
  if (r == CUDA_ERROR_NOT_READY) return Napi::Boolean::New(env, false);
  Check(env, r, "cuStreamQuery");
  return Napi::Boolean::New(env, true);
}
static Napi::Value StreamWaitEvent(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuStreamWaitEvent, Handle<CUstream>(info[0]), Handle<CUevent>(info[1]), 0);
  return env.Undefined();
}
static Napi::Value EventCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUevent e = nullptr;
  CALL(cuEventCreate, &e, CU_EVENT_DEFAULT);
  return BigPtr(env, e);
}
static Napi::Value EventDestroy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuEventDestroy, Handle<CUevent>(info[0]));
  return env.Undefined();
}
static Napi::Value EventRecord(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuEventRecord, Handle<CUevent>(info[0]), Handle<CUstream>(info[1]));
  return env.Undefined();
}
static Napi::Value EventSynchronize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuEventSynchronize, Handle<CUevent>(info[0]));
  return env.Undefined();
}
static Napi::Value EventQuery(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUresult r = Drv(env, "cuEventQuery").cuEventQuery(Handle<CUevent>(info[0]));
  if (r == CUDA_ERROR_NOT_READY) return Napi::Boolean::New(env, false);
  Check(env, r, "cuEventQuery");
  return Napi::Boolean::New(env, true);
}
static Napi::Value EventElapsed(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  float ms = 0;
  CALL(cuEventElapsedTime, &ms, Handle<CUevent>(info[0]), Handle<CUevent>(info[1]));
  return Napi::Number::New(env, ms);
}

// Stream memory operations: the wait a captured graph can honour for a signal that comes later.
static Napi::Value WaitValue32(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuStreamWaitValue32, Handle<CUstream>(info[0]), U64(info[1]), info[2].As<Napi::Number>().Uint32Value(), info[3].As<Napi::Number>().Uint32Value());
  return env.Undefined();
}
static Napi::Value WriteValue32(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuStreamWriteValue32, Handle<CUstream>(info[0]), U64(info[1]), info[2].As<Napi::Number>().Uint32Value(), info[3].As<Napi::Number>().Uint32Value());
  return env.Undefined();
}

static Napi::Value BeginCapture(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuStreamBeginCapture, Handle<CUstream>(info[0]), CU_STREAM_CAPTURE_MODE_RELAXED);
  return env.Undefined();
}
static Napi::Value EndCapture(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUgraph g = nullptr;
  CALL(cuStreamEndCapture, Handle<CUstream>(info[0]), &g);
  return BigPtr(env, g);
}
static Napi::Value GraphInstantiate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUgraphExec exec = nullptr;
  CALL(cuGraphInstantiateWithFlags, &exec, Handle<CUgraph>(info[0]), 0);
  return BigPtr(env, exec);
}
static Napi::Value GraphLaunch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuGraphLaunch, Handle<CUgraphExec>(info[0]), Handle<CUstream>(info[1]));
  return env.Undefined();
}
static Napi::Value GraphDestroy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuGraphExecDestroy, Handle<CUgraphExec>(info[0]));
  CALL(cuGraphDestroy, Handle<CUgraph>(info[1]));
  return env.Undefined();
}

static Napi::Value IpcGetHandle(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUipcMemHandle h;
  CALL(cuIpcGetMemHandle, &h, U64(info[0]));
  return Napi::Buffer<char>::Copy(env, h.reserved, sizeof h.reserved);
}
static Napi::Value IpcOpen(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto bytes = info[0].As<Napi::Uint8Array>();
  if (bytes.ByteLength() != sizeof(CUipcMemHandle)) throw Napi::RangeError::New(env, "a CUDA IPC handle is 64 bytes");
  CUipcMemHandle h;
  memcpy(h.reserved, bytes.Data(), sizeof h.reserved);
  CUdeviceptr p = 0;
  CALL(cuIpcOpenMemHandle, &p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
  return Big(env, p);
}
static Napi::Value IpcClose(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuIpcCloseMemHandle, U64(info[0]));
  return env.Undefined();
}

static CUmemAllocationProp VmmProp(int device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  return prop;
}
static Napi::Value VmmGranularity(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUmemAllocationProp prop = VmmProp(info[0].As<Napi::Number>().Int32Value());
  size_t g = 0;
  CALL(cuMemGetAllocationGranularity, &g, &prop, 0);
  return Napi::Number::New(env, static_cast<double>(g));
}
// vmmExport(bytes, device) -> { handle, fd }: what an engine with expandable segments would send.
static Napi::Value VmmExport(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUmemAllocationProp prop = VmmProp(info[1].As<Napi::Number>().Int32Value());
  CUmemGenericAllocationHandle h = 0;
  CALL(cuMemCreate, &h, static_cast<size_t>(U64(info[0])), &prop, 0);
  int fd = -1;
  CALL(cuMemExportToShareableHandle, &fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
  Napi::Object o = Napi::Object::New(env);
  o.Set("handle", Big(env, h));
  o.Set("fd", fd);
  return o;
}
// vmmImport(fd, bytes, device) -> { ptr, handle }: maps a shareable fd read-write on `device`.
static Napi::Value VmmImport(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = info[0].As<Napi::Number>().Int32Value();
  size_t size = static_cast<size_t>(U64(info[1]));
  int device = info[2].As<Napi::Number>().Int32Value();
  CUmemGenericAllocationHandle h = 0;
  CALL(cuMemImportFromShareableHandle, &h, reinterpret_cast<void*>(static_cast<uintptr_t>(fd)), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  CUdeviceptr p = 0;
  CALL(cuMemAddressReserve, &p, size, 0, 0, 0);
  CALL(cuMemMap, p, size, 0, h, 0);
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = device;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CALL(cuMemSetAccess, p, size, &access, 1);
  Napi::Object o = Napi::Object::New(env);
  o.Set("ptr", Big(env, p));
  o.Set("handle", Big(env, h));
  return o;
}
static Napi::Value VmmUnmap(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t size = static_cast<size_t>(U64(info[1]));
  CALL(cuMemUnmap, U64(info[0]), size);
  CALL(cuMemAddressFree, U64(info[0]), size);
  CALL(cuMemRelease, U64(info[2]));
  return env.Undefined();
}
static Napi::Value VmmRelease(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CALL(cuMemRelease, U64(info[0]));
  if (info.Length() > 1 && info[1].IsNumber()) close(info[1].As<Napi::Number>().Int32Value());
  return env.Undefined();
}

static Napi::Value GatherLoad(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
  CALL(cuModuleLoadData, &module, kGatherPtx);
  CALL(cuModuleGetFunction, &fn, module, "orbitkv_gather");
  return BigPtr(env, fn);
}
// gatherLaunch(fn, stream, tableHost, tableDevice, capacity, runs: Float64Array [src, dst, len]*,
// n, grid, block): fills the mapped pinned table (columns src | dst | len, `capacity` u64 each)
// and launches; the kernel reads the table through `tableDevice`.
static Napi::Value GatherLaunch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUfunction fn = Handle<CUfunction>(info[0]);
  CUstream stream = Handle<CUstream>(info[1]);
  uint64_t* table = Handle<uint64_t*>(info[2]);
  uint64_t tableDevice = U64(info[3]);
  size_t capacity = static_cast<size_t>(info[4].As<Napi::Number>().Int64Value());
  Napi::Float64Array runs = info[5].As<Napi::Float64Array>();
  uint32_t n = info[6].As<Napi::Number>().Uint32Value();
  unsigned grid = info[7].As<Napi::Number>().Uint32Value();
  unsigned block = info[8].As<Napi::Number>().Uint32Value();
  if (n > capacity || static_cast<size_t>(n) * 3 > runs.ElementLength()) throw Napi::RangeError::New(env, "gather: more runs than the table or the array holds");
  const double* r = runs.Data();
  for (uint32_t i = 0; i < n; i++) {
    table[i] = static_cast<uint64_t>(r[3 * i]);
    table[capacity + i] = static_cast<uint64_t>(r[3 * i + 1]);
    table[2 * capacity + i] = static_cast<uint64_t>(r[3 * i + 2]);
  }
  uint64_t src = tableDevice;
  uint64_t dst = tableDevice + capacity * 8;
  uint64_t len = tableDevice + capacity * 16;
  void* params[] = {&src, &dst, &len, &n};
  CALL(cuLaunchKernel, fn, grid, 1, 1, block, 1, 1, 0, stream, params, nullptr);
  return env.Undefined();
}

// whenDone(stream) -> Promise<void>: settles once the work enqueued so far has finished.
static Napi::Value WhenDone(const Napi::CallbackInfo& info) {
  return CompletionQueue::WhenDone(info.Env(), Handle<CUstream>(info[0]));
}
static Napi::Value PendingCompletions(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(CompletionQueue::Pending(info.Env())));
}

void InitCuda(Napi::Env env, Napi::Object exports) {
  Napi::Object cuda = Napi::Object::New(env);
  auto def = [&](const char* name, Napi::Value (*fn)(const Napi::CallbackInfo&)) {
    cuda.Set(name, Napi::Function::New(env, fn, name));
  };
  def("status", Status);
  def("deviceCount", DeviceCount);
  def("deviceInfo", DeviceInfo);
  def("useDevice", UseDevice);
  def("memAlloc", MemAlloc);
  def("memFree", MemFree);
  def("memsetAsync", MemsetAsync);
  def("hostAlloc", HostAlloc);
  def("hostFree", HostFree);
  def("hostAllocBuffer", HostAllocBuffer);
  def("hostRelease", HostRelease);
  def("livePinned", LivePinned);
  def("hostRegister", HostRegister);
  def("hostUnregister", HostUnregister);
  def("hostDevicePointer", HostDevicePointer);
  def("hostView", HostView);
  def("copyRuns", CopyRuns);
  def("streamCreate", StreamCreate);
  def("streamDestroy", StreamDestroy);
  def("streamSynchronize", StreamSynchronize);
  def("streamQuery", StreamQuery);
  def("streamWaitEvent", StreamWaitEvent);
  def("eventCreate", EventCreate);
  def("eventDestroy", EventDestroy);
  def("eventRecord", EventRecord);
  def("eventSynchronize", EventSynchronize);
  def("eventQuery", EventQuery);
  def("eventElapsed", EventElapsed);
  def("waitValue32", WaitValue32);
  def("writeValue32", WriteValue32);
  def("beginCapture", BeginCapture);
  def("endCapture", EndCapture);
  def("graphInstantiate", GraphInstantiate);
  def("graphLaunch", GraphLaunch);
  def("graphDestroy", GraphDestroy);
  def("ipcGetHandle", IpcGetHandle);
  def("ipcOpen", IpcOpen);
  def("ipcClose", IpcClose);
  def("vmmGranularity", VmmGranularity);
  def("vmmExport", VmmExport);
  def("vmmImport", VmmImport);
  def("vmmUnmap", VmmUnmap);
  def("vmmRelease", VmmRelease);
  def("gatherLoad", GatherLoad);
  def("gatherLaunch", GatherLaunch);
  def("whenDone", WhenDone);
  def("pendingCompletions", PendingCompletions);
  exports.Set("cuda", cuda);
}

}  // namespace orbitkv::cuda
