// Fills in the page tables of a mapping once, off the JS thread, so later copies into it do not
// take a page fault per 4 KiB (a fresh shared mapping of an engine's pages costs a minor fault
// per page on first touch: copies into it ran at ~0.8 GB/s instead of ~7 GB/s on the dev VM).
// Each page takes an atomic fetch-or of 0: a write fault that changes no byte and leaves
// concurrent writers' bytes as they are. Not madvise(MADV_POPULATE_WRITE): it holds the
// process's mmap lock for the range it is given, and every mmap and munmap of the JS thread (V8
// grows and shrinks its heap with them) waits behind it. Populating a 256 MiB registration so
// held the Manager's JS thread in one V8 munmap for 85 ms, and a GC pause at 91-124 ms even in
// 256 KiB chunks (rwsem readers take the lock again before the waiting writer runs); faulting
// page by page takes the VMA's own lock on kernels that have per-VMA locks (6.4+), or the mmap
// lock for one fault at a time before them: the pause was 17-19 ms, the populate ~30% slower
// (spec/bench/results/populate-lock-dev-vm.txt). The view's backing store is held until the
// worker ends, so a mapping unmapped meanwhile stays mapped; the mapping must stay backed (a
// memfd sealed against shrinking, as the Manager requires: a page past the file's end is SIGBUS).
//
//   populatePages(bytes: Uint8Array) -> Promise<'touch'>
#include "populate.h"
#include <unistd.h>
#include <cstdint>
#include "../args.h"

namespace orbitkv {

namespace {

class PopulateWorker : public Napi::AsyncWorker {
 public:
  PopulateWorker(Napi::Env env, Bytes bytes) : Napi::AsyncWorker(env, "orbitkv.populatePages"), deferred_(Napi::Promise::Deferred::New(env)), bytes_(std::move(bytes)) {}

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    if (bytes_.length == 0) return;
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const uintptr_t start = reinterpret_cast<uintptr_t>(bytes_.data) & ~(page - 1);
    const uintptr_t end = reinterpret_cast<uintptr_t>(bytes_.data) + bytes_.length;
    for (uintptr_t p = start; p < end; p += page) {
      // Inside the view: the first byte of each page at or after the view's start.
      uint8_t* at = reinterpret_cast<uint8_t*>(p < reinterpret_cast<uintptr_t>(bytes_.data) ? reinterpret_cast<uintptr_t>(bytes_.data) : p);
      __atomic_fetch_or(at, static_cast<uint8_t>(0), __ATOMIC_RELAXED);
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    bytes_.store.reset();
    deferred_.Resolve(Napi::String::New(env, "touch"));
  }

  void OnError(const Napi::Error& error) override {
    bytes_.store.reset();
    deferred_.Reject(error.Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  Bytes bytes_;
};

Napi::Value PopulatePages(const Napi::CallbackInfo& info) {
  auto* worker = new PopulateWorker(info.Env(), ArgBytes(info, 0, "bytes"));
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

}  // namespace

void InitPopulate(Napi::Env env, Napi::Object exports) {
  exports.Set("populatePages", Napi::Function::New(env, PopulatePages, "populatePages"));
}

}  // namespace orbitkv
