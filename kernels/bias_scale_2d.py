"""
A 2-D pointwise kernel: out[m, n] = x[m, n] * scale[m] + bias[n], with row and
column strides, broadcasting through x[:, None] / x[None, :] and a 2-D mask.
"""
import triton
import triton.language as tl


@triton.jit
def bias_scale_kernel(x_ptr, scale_ptr, bias_ptr, out_ptr, M, N, stride_xm, stride_om,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_m = offs_m < M
    mask_n = offs_n < N
    mask = mask_m[:, None] & mask_n[None, :]
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :], mask=mask, other=0.0)
    scale = tl.load(scale_ptr + offs_m, mask=mask_m, other=1.0)
    bias = tl.load(bias_ptr + offs_n, mask=mask_n)
    out = x * scale[:, None] + bias[None, :]
    tl.store(out_ptr + offs_m[:, None] * stride_om + offs_n[None, :], out, mask=mask)

# kernel: bias_scale_kernel
# signature: *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, i32:16, i32:16, 32, 64
# grid: (cdiv(M, 32), cdiv(N, 64), 1)
# args: x = rand((M, N), fp32); scale = rand(M, fp32); bias = rand(N, fp32); out = empty((M, N), fp32); M = 300; N = 208; stride_xm = 208; stride_om = 208
# bench_args: x = rand((M, N), fp32); scale = rand(M, fp32); bias = rand(N, fp32); out = empty((M, N), fp32); M = 8192; N = 8192; stride_xm = 8192; stride_om = 8192
# torch: out = x * scale[:, None] + bias[None, :]
# check: out == x * scale[:, None] + bias[None, :]
# tol: 1e-6
#
# kernel: bias_scale_kernel
# signature: *fp32, *fp32, *fp32, *fp32, i32, i32, i32, i32, 16, 128
# num_warps: 8
# grid: (cdiv(M, 16), cdiv(N, 128), 1)
# args: x = rand((M, N), fp32); scale = rand(M, fp32); bias = rand(N, fp32); out = empty((M, N), fp32); M = 77; N = 301; stride_xm = 301; stride_om = 301
# bench_args: x = rand((M, N), fp32); scale = rand(M, fp32); bias = rand(N, fp32); out = empty((M, N), fp32); M = 6007; N = 9001; stride_xm = 9001; stride_om = 9001
# torch: out = x * scale[:, None] + bias[None, :]
# check: out == x * scale[:, None] + bias[None, :]
# tol: 1e-6
