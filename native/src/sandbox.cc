// denyIoUringSetup(): installs a seccomp filter that refuses io_uring_setup with EPERM in this
// process, the way Docker's and Kubernetes' default profiles do. Irreversible: specs call it in a
// child process to prove the refusal path and the thread-pool fallback are real.
#include <napi.h>
#include <cerrno>
#include <cstddef>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "errno_name.h"
#include "sandbox.h"

namespace orbitkv {

#if defined(__x86_64__)
#define ORBITKV_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ORBITKV_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

static Napi::Value DenyIoUringSetup(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
#ifdef ORBITKV_AUDIT_ARCH
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ORBITKV_AUDIT_ARCH, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {static_cast<unsigned short>(sizeof(filter) / sizeof(filter[0])), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) throw SystemError(env, errno, "prctl", "PR_SET_NO_NEW_PRIVS");
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0)
    throw SystemError(env, errno, "seccomp", "SECCOMP_SET_MODE_FILTER");
  return env.Undefined();
#else
  throw SystemError(env, ENOSYS, "seccomp", "unsupported architecture");
#endif
}

void InitSandbox(Napi::Env env, Napi::Object exports) {
  exports.Set("denyIoUringSetup", Napi::Function::New(env, DenyIoUringSetup, "denyIoUringSetup"));
}

}  // namespace orbitkv
