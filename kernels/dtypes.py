"""
Conversions and mixed-precision arithmetic: fp16 in, fp32 math, bf16 and fp16
out; Triton's promotion rules (fp16 * 2.0 stays fp16, fp16 * an fp32 argument
becomes fp32); fp64 arithmetic; vector widths of 16-bit and 64-bit elements.
"""
import triton
import triton.language as tl


@triton.jit
def mixed_kernel(x_ptr, y_ptr, h_ptr, b_ptr, d_ptr, alpha, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)          # fp16
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)          # fp32
    h = x * 2.0 + x                                          # stays fp16
    tl.store(h_ptr + offs, h, mask=mask)
    f = x * alpha + y                                        # fp16 * fp32 scalar -> fp32
    tl.store(b_ptr + offs, f.to(tl.bfloat16), mask=mask)
    d = f.to(tl.float64) * 3.0 - x.to(tl.float64) / 7.0
    tl.store(d_ptr + offs, d, mask=mask)

# kernel: mixed_kernel
# signature: *fp16:16, *fp32:16, *fp16:16, *bf16:16, *fp64:16, fp32, i32, 1024
# grid: (cdiv(n, 1024), 1, 1)
# args: x = rand(n, fp16); y = rand(n, fp32); h = empty(n, fp16); b = empty(n, bf16); d = empty(n, fp64); alpha = 0.75; n = 10000
# bench_args: x = rand(n, fp16); y = rand(n, fp32); h = empty(n, fp16); b = empty(n, bf16); d = empty(n, fp64); alpha = 0.75; n = 1 << 24
# torch: f = x.float() * alpha + y; h = x * 2.0 + x; b = f.to(torch.bfloat16); d = f.double() * 3.0 - x.double() / 7.0
# check: h == x * 3; b == x * 0.75 + y; d == (x * 0.75 + y) * 3 - x / 7
# tol: h: 1e-3; b: 8e-3; d: 1e-6
