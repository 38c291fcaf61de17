// A gather/scatter copy kernel in PTX, compiled by the driver at run time (no nvcc at build).
// Thread blocks walk a table of (src, dst, len) runs; each thread moves 16-byte words, 4 at a
// time. src/dst may be device memory or mapped pinned host memory, so one launch replaces a
// cuMemcpyAsync per scattered block (each of which costs ~2.4 us to enqueue). Runs must be
// 16-byte aligned with lengths a multiple of 16.
#pragma once

namespace orbitkv::cuda {

constexpr const char* kGatherPtx = R"PTX(
.version 7.0
.target sm_70
.address_size 64

.visible .entry orbitkv_gather(
  .param .u64 p_src,
  .param .u64 p_dst,
  .param .u64 p_len,
  .param .u32 p_n
)
{
  .reg .pred %p<4>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<40>;

  ld.param.u64 %rd1, [p_src];
  ld.param.u64 %rd2, [p_dst];
  ld.param.u64 %rd3, [p_len];
  ld.param.u32 %r1, [p_n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %nctaid.x;
  mov.u32 %r4, %tid.x;
  mov.u32 %r5, %ntid.x;
  mul.wide.u32 %rd20, %r5, 16;
  shl.b64 %rd21, %rd20, 2;
RUN_LOOP:
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd4, %r2, 8;
  add.u64 %rd5, %rd1, %rd4;
  ld.global.u64 %rd6, [%rd5];
  add.u64 %rd7, %rd2, %rd4;
  ld.global.u64 %rd8, [%rd7];
  add.u64 %rd9, %rd3, %rd4;
  ld.global.u64 %rd10, [%rd9];
  mul.wide.u32 %rd11, %r4, 16;
UNROLLED:
  add.u64 %rd12, %rd11, %rd20;
  add.u64 %rd13, %rd12, %rd20;
  add.u64 %rd14, %rd13, %rd20;
  add.u64 %rd15, %rd14, 16;
  setp.gt.u64 %p2, %rd15, %rd10;
  @%p2 bra TAIL;
  add.u64 %rd22, %rd6, %rd11;
  add.u64 %rd23, %rd6, %rd12;
  add.u64 %rd24, %rd6, %rd13;
  add.u64 %rd25, %rd6, %rd14;
  ld.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd22];
  ld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd23];
  ld.global.v4.u32 {%r14, %r15, %r16, %r17}, [%rd24];
  ld.global.v4.u32 {%r18, %r19, %r20, %r21}, [%rd25];
  add.u64 %rd26, %rd8, %rd11;
  add.u64 %rd27, %rd8, %rd12;
  add.u64 %rd28, %rd8, %rd13;
  add.u64 %rd29, %rd8, %rd14;
  st.global.v4.u32 [%rd26], {%r6, %r7, %r8, %r9};
  st.global.v4.u32 [%rd27], {%r10, %r11, %r12, %r13};
  st.global.v4.u32 [%rd28], {%r14, %r15, %r16, %r17};
  st.global.v4.u32 [%rd29], {%r18, %r19, %r20, %r21};
  add.u64 %rd11, %rd11, %rd21;
  bra UNROLLED;
TAIL:
  setp.ge.u64 %p3, %rd11, %rd10;
  @%p3 bra NEXT_RUN;
  add.u64 %rd22, %rd6, %rd11;
  ld.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd22];
  add.u64 %rd26, %rd8, %rd11;
  st.global.v4.u32 [%rd26], {%r6, %r7, %r8, %r9};
  add.u64 %rd11, %rd11, %rd20;
  bra TAIL;
NEXT_RUN:
  add.u32 %r2, %r2, %r3;
  bra RUN_LOOP;
DONE:
  ret;
}
)PTX";

}  // namespace orbitkv::cuda
