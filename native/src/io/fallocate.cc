// Reserves a file's blocks with fallocate(2) off the JS thread. The SSD tier used to run
// fallocate(1) through child_process.execFile; spawning from the Manager (a process holding its
// whole DRAM arena) held the JS thread in ChildProcess.spawn for ~0.6 s on the dev VM with a
// 320 MiB arena, and more with more. The file is opened (O_WRONLY | O_CLOEXEC) and closed by the
// pool thread itself, so no descriptor of the caller's can be closed under the call.
//
//   fallocateFile(path: string, offset: number, length: number) -> Promise<string | null>
//     null once [offset, offset + length) is allocated (the file grows to cover it), else the
//     errno's name (ENOSPC, EFBIG, EOPNOTSUPP where the file system has no fallocate, ENOENT...).
#include "fallocate.h"
#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <cstdint>
#include <string>
#include "../args.h"
#include "../errno_name.h"

namespace orbitkv {

namespace {

class FallocateWorker : public Napi::AsyncWorker {
 public:
  FallocateWorker(Napi::Env env, std::string path, int64_t offset, int64_t length)
      : Napi::AsyncWorker(env, "orbitkv.fallocateFile"), deferred_(Napi::Promise::Deferred::New(env)), path_(std::move(path)), offset_(offset), length_(length) {}

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    int fd;
    do fd = open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
      err_ = errno;
      return;
    }
    int r;
    do r = fallocate(fd, 0, static_cast<off_t>(offset_), static_cast<off_t>(length_));
    while (r != 0 && errno == EINTR);
    if (r != 0) err_ = errno;
    close(fd);
  }

  void OnOK() override {
    Napi::Env env = Env();
    deferred_.Resolve(err_ == 0 ? env.Null() : Napi::String::New(env, ErrnoName(err_)).As<Napi::Value>());
  }

  void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::string path_;
  int64_t offset_;
  int64_t length_;
  int err_ = 0;
};

Napi::Value FallocateFile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) throw ArgError(env, false, "path must be a string");
  std::string path = info[0].As<Napi::String>().Utf8Value();
  if (path.empty() || path.find('\0') != std::string::npos) throw ArgError(env, false, "path must be a non-empty string without NUL");
  const int64_t offset = ArgInt(info, 1, "offset", 0, INT64_C(9007199254740991));
  const int64_t length = ArgInt(info, 2, "length", 1, INT64_C(9007199254740991));
  if (offset > INT64_C(9007199254740991) - length) throw ArgError(env, true, "offset + length must be at most 2^53 - 1");
  auto* worker = new FallocateWorker(env, std::move(path), offset, length);
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

}  // namespace

void InitFallocate(Napi::Env env, Napi::Object exports) {
  exports.Set("fallocateFile", Napi::Function::New(env, FallocateFile, "fallocateFile"));
}

}  // namespace orbitkv
