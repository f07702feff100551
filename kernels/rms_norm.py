"""
RMS normalization (as in LLaMA-style models): one row per program,
y = x / sqrt(mean(x^2) + eps) * w, walking the row in BLOCK_SIZE chunks:
one pass for the sum of squares, one to scale. The arithmetic is fp32
whatever the storage type (fp16 or fp32); the row's rstd is kept too.
"""
import triton
import triton.language as tl


@triton.jit
def rms_norm_fwd_kernel(X, Y, W, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        acc += x * x
    rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
    tl.store(Rstd + row, rstd)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask).to(tl.float32)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        tl.store(Y + cols, x * rstd * w, mask=mask)

# kernel: rms_norm_fwd_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, fp32, 4096
# num_warps: 8
# grid: 3
# args: x = randn((3, N), fp16); y = empty((3, N), fp16); w = rand(N, fp16); rstd = empty(3, fp32); stride = N; N = 4096; eps = 1e-6
# bench_args: x = randn((4096, N), fp16); y = empty((4096, N), fp16); w = rand(N, fp16); rstd = empty(4096, fp32); stride = N; N = 4096; eps = 1e-6
# bench_grid: 4096
# torch: y = F.rms_norm(x, (N,), w, eps)
# check: rstd == 1 / np.sqrt((x * x).sum(axis=1) / N + eps); y == x / np.sqrt((x * x).sum(axis=1) / N + eps).reshape(3, 1) * w
# tol: y: 2e-3; rstd: 1e-5
# triton_identical: rstd y
#
# kernel: rms_norm_fwd_kernel
# signature: *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, fp32, 1024
# num_warps: 4
# grid: 5
# args: x = randn((5, N), fp32); y = empty((5, N), fp32); w = rand(N, fp32); rstd = empty(5, fp32); stride = N; N = 1000; eps = 1e-6
# bench_args: x = randn((4096, N), fp32); y = empty((4096, N), fp32); w = rand(N, fp32); rstd = empty(4096, fp32); stride = N; N = 4096; eps = 1e-6
# bench_grid: 4096
# torch: y = F.rms_norm(x, (N,), w, eps)
# check: rstd == 1 / np.sqrt((x * x).sum(axis=1) / N + eps); y == x / np.sqrt((x * x).sum(axis=1) / N + eps).reshape(5, 1) * w
# tol: 1e-5
#
# Rows longer than the chunk, and a row stride larger than the row (a slice of a wider matrix): the
# columns past N are never written (NaN in the reference: not compared; a NaN the kernel leaves elsewhere fails).
# kernel: rms_norm_fwd_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, *fp32:16, i32:16, i32, fp32, 512
# num_warps: 2
# grid: 4
# args: x = randn((4, stride), fp16); y = empty((4, stride), fp16); w = rand(stride, fp16); rstd = empty(4, fp32); stride = 2064; N = 2000; eps = 1e-6
# check: rstd == 1 / np.sqrt((x[:, :N] * x[:, :N]).sum(axis=1) / N + eps); y == np.where(np.arange(stride) < N, x / np.sqrt((x[:, :N] * x[:, :N]).sum(axis=1) / N + eps).reshape(4, 1) * w, np.nan)
# tol: y: 2e-3; rstd: 1e-5
# triton_identical: rstd y
