"""
Out-of-place transpose: reads rows of x and writes columns of out. The load and
the store want different thread orders, so the tile changes layout in between.
"""
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK + tl.arange(0, BLOCK)
    rn = pid_n * BLOCK + tl.arange(0, BLOCK)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    # out is N x M: element (m, n) goes to out[n, m]
    tl.store(out_ptr + rn[None, :] * M + rm[:, None], tile, mask=mask)

# kernel: transpose_kernel
# signature: *fp32:16, *fp32:16, i32:16, i32:16, 32
# grid: (cdiv(M, 32), cdiv(N, 32), 1)
# args: x = rand((M, N), fp32); out = empty((N, M), fp32); M = 256; N = 96
# bench_args: x = rand((M, N), fp32); out = empty((N, M), fp32); M = 8192; N = 8192
# torch: out = x.t().contiguous()
# check: out == x.T
# tol: 0
#
# kernel: transpose_kernel
# signature: *fp32, *fp32, i32, i32, 64
# num_warps: 8
# grid: (cdiv(M, 64), cdiv(N, 64), 1)
# args: x = rand((M, N), fp32); out = empty((N, M), fp32); M = 100; N = 67
# bench_args: x = rand((M, N), fp32); out = empty((N, M), fp32); M = 7000; N = 6007
# torch: out = x.t().contiguous()
# check: out == x.T
# tol: 0
#
# Bytes through shared memory: the convert packs them into b16/b32 words
# (write and read vectors), signed ones sign-extended when read back.
# kernel: transpose_kernel
# signature: *i8:16, *i8:16, i32:16, i32:16, 32
# grid: (cdiv(M, 32), cdiv(N, 32), 1)
# args: x = randint(-128, 128, (M, N), i8); out = empty((N, M), i8); M = 64; N = 96
# torch: out = x.t().contiguous()
# check: out == x.T
# tol: 0
#
# kernel: transpose_kernel
# signature: *u8:16, *u8:16, i32:16, i32:16, 64
# num_warps: 8
# grid: (cdiv(M, 64), cdiv(N, 64), 1)
# args: x = randint(0, 256, (M, N), u8); out = empty((N, M), u8); M = 128; N = 80
# torch: out = x.t().contiguous()
# check: out == x.T
# tol: 0
#
# kernel: transpose_kernel
# signature: *i8:16, *i8:16, i32:16, i32:16, 64
# num_warps: 8
# grid: (cdiv(M, 64), cdiv(N, 64), 1)
# args: x = randint(-128, 128, (M, N), i8); out = empty((N, M), i8); M = 96; N = 64
# torch: out = x.t().contiguous()
# check: out == x.T
# tol: 0
