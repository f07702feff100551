# RUN: -k scale_rows -s '*fp32:16, *fp32:16, i32:16, 64, 64' --stats -o /dev/null
# RUN: -k scale_rows -s '*fp32:16, *fp32:16, i32:16, 64, 64' --num-warps 1 --arch sm_90a --stats -o /dev/null
# RUN: -k scale_rows -s '*fp32:16, *fp32:16, i32:16, 256, 128' --num-warps 1 --stats -o /dev/null
# --stats: one line after compiling (on stdout with -o): tric's register
# estimate (opt/regs.c) with the source line and op of its peak, the shared
# memory of the row reduction, the warps, and whether the estimate passes
# 255 (the last run holds 256 x 128 f32 in one warp: 1024 per thread).
import triton
import triton.language as tl


@triton.jit
def scale_rows(x_ptr, out_ptr, n, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    x = tl.load(x_ptr + rows[:, None] * n + cols[None, :])
    s = tl.sum(x, axis=1)
    tl.store(out_ptr + rows[:, None] * n + cols[None, :], x / s[:, None])
