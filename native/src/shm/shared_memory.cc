#include "shm/shared_memory.h"
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <mutex>
#include <string>
#include <unordered_set>
#include "args.h"
#include "errno_name.h"

namespace orbitkv {

// Live mappings, so unmapShared refuses a buffer it did not map. V8 may free backing stores
// on a background thread: guarded.
static std::mutex mappingsLock;
static std::unordered_set<void*> mappings;

static void Unmap(void* data, size_t length, void*) {
  // Forget the address before the kernel can reuse it: a mapping made on another thread right
  // after munmap may get the same address, and its entry must survive.
  {
    std::lock_guard<std::mutex> hold(mappingsLock);
    mappings.erase(data);
  }
  munmap(data, length);
}

static constexpr unsigned kSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;

static int64_t ArgSize(const Napi::CallbackInfo& info, size_t i, const char* name) {
  return ArgInt(info, i, name, 1, int64_t{1} << 46);
}

static std::string ArgString(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (info.Length() <= i || !info[i].IsString()) throw ArgError(info.Env(), false, std::string(name) + " must be a string");
  std::string s = info[i].As<Napi::String>().Utf8Value();
  if (s.empty() || s.find('\0') != std::string::npos) throw ArgError(info.Env(), true, std::string(name) + " must be a non-empty string without NUL");
  return s;
}

// createMemfd(name, size) -> fd: size fixed by seals (no peer can shrink it under a mapping).
static Napi::Value CreateMemfd(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string name = ArgString(info, 0, "name");
  int64_t size = ArgSize(info, 1, "size");
  int fd = memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) throw SystemError(env, errno, "memfd_create", name);
  if (ftruncate(fd, size) != 0 || fcntl(fd, F_ADD_SEALS, kSeals) != 0) {
    int err = errno;
    close(fd);
    throw SystemError(env, err, "ftruncate", name + ": " + std::to_string(size) + " bytes");
  }
  return Napi::Number::New(env, fd);
}

// openSharedFile(path, size, create) -> fd of a regular file only this user can open.
static Napi::Value OpenSharedFile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string path = ArgString(info, 0, "path");
  int64_t size = ArgSize(info, 1, "size");
  bool create = info.Length() > 2 && info[2].ToBoolean();
  int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT | O_EXCL : 0);
  int fd = open(path.c_str(), flags, 0600);
  if (fd < 0) throw SystemError(env, errno, "open", path);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    throw SystemError(env, err, "fstat", path);
  }
  const char* refusal = !S_ISREG(st.st_mode)        ? "not a regular file"
                        : st.st_uid != geteuid()     ? "owned by another user"
                        : (st.st_mode & 077) != 0    ? "readable or writable by group or others (needs mode 0600)"
                                                     : nullptr;
  if (refusal != nullptr) {
    close(fd);
    throw SystemError(env, EPERM, "open", path + ": " + refusal);
  }
  if (create && ftruncate(fd, size) != 0) {
    int err = errno;
    close(fd);
    throw SystemError(env, err, "ftruncate", path);
  }
  if (!create && st.st_size < size) {
    close(fd);
    throw SystemError(env, EINVAL, "open", path + ": " + std::to_string(st.st_size) + " bytes, smaller than " + std::to_string(size));
  }
  return Napi::Number::New(env, fd);
}

// mapShared(fd, length, offset, requireSealed) -> ArrayBuffer over MAP_SHARED memory.
static Napi::Value MapShared(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = static_cast<int>(ArgInt(info, 0, "fd", 0, INT32_MAX));
  int64_t length = ArgSize(info, 1, "length");
  int64_t offset = ArgInt(info, 2, "offset", 0, int64_t{1} << 46);
  bool requireSealed = info.Length() > 3 && info[3].ToBoolean();
  long page = sysconf(_SC_PAGESIZE);
  if (offset % page != 0) throw ArgError(env, true, "offset must be a multiple of the page size (" + std::to_string(page) + ")");
  struct stat st;
  if (fstat(fd, &st) != 0) throw SystemError(env, errno, "fstat", "fd " + std::to_string(fd));
  if (!S_ISREG(st.st_mode)) throw SystemError(env, EINVAL, "mmap", "fd " + std::to_string(fd) + " is not a memfd or regular file");
  // Touching a page past the end of the file raises SIGBUS: refuse the range up front.
  if (offset + length > st.st_size)
    throw SystemError(env, EINVAL, "mmap", std::to_string(offset) + "+" + std::to_string(length) + " is past the end of the " + std::to_string(st.st_size) + "-byte file");
  if (requireSealed) {
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || (seals & F_SEAL_SHRINK) == 0)
      throw SystemError(env, EPERM, "mmap", "fd " + std::to_string(fd) + " is not sealed against shrinking (F_SEAL_SHRINK): its owner could truncate it under the mapping");
  }
  void* data = mmap(nullptr, static_cast<size_t>(length), PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
  if (data == MAP_FAILED) throw SystemError(env, errno, "mmap", std::to_string(length) + " bytes of fd " + std::to_string(fd));
  {
    std::lock_guard<std::mutex> hold(mappingsLock);
    mappings.insert(data);
  }
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  std::unique_ptr<v8::BackingStore> store = v8::ArrayBuffer::NewBackingStore(data, static_cast<size_t>(length), Unmap, nullptr);
  v8::Local<v8::ArrayBuffer> buffer = v8::ArrayBuffer::New(isolate, std::move(store));
  return Napi::Value(env, FromV8(buffer));
}

// unmapShared(arrayBuffer): detaches it now; the memory goes when the last operation lets go.
static Napi::Value UnmapShared(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsArrayBuffer()) throw ArgError(env, false, "buffer must be an ArrayBuffer from mapShared");
  auto buffer = info[0].As<Napi::ArrayBuffer>();
  bool detached = false;
  napi_is_detached_arraybuffer(env, buffer, &detached);
  if (detached) return Napi::Boolean::New(env, false);
  {
    std::lock_guard<std::mutex> hold(mappingsLock);
    if (mappings.count(buffer.Data()) == 0) throw ArgError(env, false, "buffer is not a mapping made by mapShared");
  }
  buffer.Detach();
  return Napi::Boolean::New(env, true);
}

// liveMappings() -> how many mappings are still mapped (specs assert release).
static Napi::Value LiveMappings(const Napi::CallbackInfo& info) {
  std::lock_guard<std::mutex> hold(mappingsLock);
  return Napi::Number::New(info.Env(), static_cast<double>(mappings.size()));
}

void InitSharedMemory(Napi::Env env, Napi::Object exports) {
  exports.Set("createMemfd", Napi::Function::New(env, CreateMemfd, "createMemfd"));
  exports.Set("openSharedFile", Napi::Function::New(env, OpenSharedFile, "openSharedFile"));
  exports.Set("mapShared", Napi::Function::New(env, MapShared, "mapShared"));
  exports.Set("unmapShared", Napi::Function::New(env, UnmapShared, "unmapShared"));
  exports.Set("liveMappings", Napi::Function::New(env, LiveMappings, "liveMappings"));
}

}  // namespace orbitkv
