// Loads the CUDA driver at run time: dlopen(libcuda.so.1), entry points through
// cuGetProcAddress_v2 (CUDA 12+ signature, asking for the CUDA 12.0 ABI of each function),
// else dlsym of the versioned name. One build runs with or without a GPU.
#include <dlfcn.h>
#include <mutex>
#include "cuda/driver_api.h"

namespace orbitkv::cuda {

using GetProcAddressV2 = CUresult (*)(const char* symbol, void** pfn, int cudaVersion, uint64_t flags, int* status);

static DriverTable table;
static const DriverTable* loaded = nullptr;
static std::string failure;
static std::once_flag once;

static void Load() {
  const char* path = getenv("ORBITKV_LIBCUDA");
  void* lib = dlopen(path != nullptr ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* err = dlerror();
    failure = std::string("no CUDA driver: dlopen(libcuda.so.1) failed: ") + (err != nullptr ? err : "unknown");
    return;
  }
  auto getProc = reinterpret_cast<GetProcAddressV2>(dlsym(lib, "cuGetProcAddress_v2"));
  std::string missing;
  auto resolve = [&](const char* base, const char* versioned, void** slot) {
    if (getProc != nullptr) {
      int status = 0;
      if (getProc(base, slot, 12000, 0, &status) == CUDA_SUCCESS && *slot != nullptr) return;
    }
    *slot = dlsym(lib, versioned);
    if (*slot == nullptr) missing += std::string(missing.empty() ? "" : ", ") + versioned;
  };
#define ORBITKV_CUDA_RESOLVE(name, sym, params) resolve(#name, sym, reinterpret_cast<void**>(&table.name));
  ORBITKV_CUDA_FUNCTIONS(ORBITKV_CUDA_RESOLVE)
#undef ORBITKV_CUDA_RESOLVE
  if (table.cuInit == nullptr || table.cuGetErrorName == nullptr) {
    failure = "libcuda.so.1 lacks cuInit/cuGetErrorName";
    return;
  }
  CUresult r = table.cuInit(0);
  if (r != CUDA_SUCCESS) {
    const char* name = nullptr;
    table.cuGetErrorName(r, &name);
    failure = std::string("cuInit failed: ") + (name != nullptr ? name : std::to_string(r));
    return;
  }
  if (!missing.empty()) {
    failure = "the CUDA driver is too old: missing " + missing;
    return;
  }
  loaded = &table;
}

const DriverTable* LoadDriver(std::string* reason) {
  std::call_once(once, Load);
  if (loaded == nullptr && reason != nullptr) *reason = failure;
  return loaded;
}

}  // namespace orbitkv::cuda
