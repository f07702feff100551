"""
Persistent matmuls: a fixed grid of NUM_PROGS programs walks the output
tiles (tile = pid, pid + NUM_PROGS, ...) in grouped order. The K loop is
nested in a tile loop marked tl.range(..., flatten=True), so the two run as
one loop (opt/flatten.c): the K pipeline goes on from one tile into the
next while a tile's epilogue stores it. The epilogue finds its tile from a
counter of its own (tile_c), carried by the tile loop.

- persistent_matmul_kernel: pointer loads, masked along K; rows and
  columns past the edges are clamped to 0 and the stores masked.
- persistent_desc_kernel: the same over tensor descriptors made in the
  kernel (TMA on sm_90a; b given as N x K and read through .T); HALVES
  stores the tile's two column halves apart (split from a reshape and a
  permute of the accumulator).

The blocks cover fewer programs than tiles and more, a K that is not a
multiple of BLOCK_K, K = 0 (the K loop never runs: the tiles are zeros) and
fp8 operands.
"""
import triton
import triton.language as tl


@triton.jit
def tile_coords(tile, num_pid_m, num_pid_n, GROUP_M: tl.constexpr):
    in_group = GROUP_M * num_pid_n
    first_m = (tile // in_group) * GROUP_M
    rows = min(num_pid_m - first_m, GROUP_M)
    return first_m + (tile % in_group) % rows, (tile % in_group) // rows


@triton.jit
def persistent_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                             GROUP_M: tl.constexpr, NUM_PROGS: tl.constexpr):
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_steps = tl.cdiv(K, BLOCK_K)
    tile_c = tl.program_id(0) - NUM_PROGS
    offs_k = tl.arange(0, BLOCK_K)
    for tile in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_PROGS, flatten=True):
        pid_m, pid_n = tile_coords(tile, num_pid_m, num_pid_n, GROUP_M)
        rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        rows = tl.max_contiguous(tl.multiple_of(tl.where(rows < M, rows, 0), BLOCK_M), BLOCK_M)
        cols = tl.max_contiguous(tl.multiple_of(tl.where(cols < N, cols, 0), BLOCK_N), BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(k_steps):
            kk = k * BLOCK_K + offs_k
            a = tl.load(a_ptr + rows[:, None] * stride_am + kk[None, :], mask=kk[None, :] < K, other=0.0)
            b = tl.load(b_ptr + kk[:, None] * stride_bk + cols[None, :], mask=kk[:, None] < K, other=0.0)
            acc = tl.dot(a, b, acc)
        tile_c += NUM_PROGS
        pid_m, pid_n = tile_coords(tile_c, num_pid_m, num_pid_n, GROUP_M)
        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :], acc.to(c_ptr.dtype.element_ty), mask=mask)


# kernel: persistent_matmul_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32, i32, i32:16, i32:16, 64, 64, 32, 2, 3
# grid: (3, 1, 1)
# args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 200; N = 144; K = 72; stride_am = K; stride_bk = N; stride_cm = N
# check: c == (a @ b).astype(np.float16)
# tol: 1e-2
#
# kernel: persistent_matmul_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 64, 8, 3
# num_warps: 8
# grid: (3, 1, 1)
# args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 256; N = 256; K = 128; stride_am = K; stride_bk = N; stride_cm = N
# check: c == (a @ b).astype(np.float16)
# tol: 1e-2
#
# kernel: persistent_matmul_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32, 1, 8
# grid: (8, 1, 1)
# args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 64; N = 128; K = 0; stride_am = K; stride_bk = N; stride_cm = N
# check: c == (a @ b).astype(np.float16)
# tol: 0
#
# kernel: persistent_matmul_kernel
# signature: *fp8e4nv:16, *fp8e4nv:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 128, 64, 4, 4
# arch: sm_90a sm_89
# grid: (4, 1, 1)
# args: a = randn((M, K), fp8e4nv); b = randn((K, N), fp8e4nv); c = empty((M, N), fp16); M = 192; N = 256; K = 192; stride_am = K; stride_bk = N; stride_cm = N
# check: c == (a @ b).astype(np.float16)
# tol: 1e-2


@triton.jit
def persistent_desc_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                           BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, NUM_PROGS: tl.constexpr, HALVES: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    C_N: tl.constexpr = BLOCK_N // 2 if HALVES else BLOCK_N
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, C_N])
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_steps = tl.cdiv(K, BLOCK_K)
    tile_c = tl.program_id(0) - NUM_PROGS
    for tile in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_PROGS, flatten=True):
        pid_m, pid_n = tile_coords(tile, num_pid_m, num_pid_n, GROUP_M)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(k_steps):
            a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
            b = b_desc.load([pid_n * BLOCK_N, k * BLOCK_K])
            acc = tl.dot(a, b.T, acc)
        tile_c += NUM_PROGS
        pid_m, pid_n = tile_coords(tile_c, num_pid_m, num_pid_n, GROUP_M)
        if HALVES:   # the accumulator's two column halves stored apart
            acc0, acc1 = tl.split(tl.permute(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1)))
            c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc0.to(tl.float16))
            c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N + C_N], acc1.to(tl.float16))
        else:
            c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


# kernel: persistent_desc_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, 128, 128, 64, 4, 3, 0
# num_warps: 8
# grid: (3, 1, 1)
# args: a = rand((M, K), fp16); b = rand((N, K), fp16); c = empty((M, N), fp16); M = 256; N = 256; K = 128
# check: c == (a @ b.T).astype(np.float16)
# tol: 1e-2
#
# kernel: persistent_desc_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32, i32, i32, 64, 64, 32, 2, 5, 0
# grid: (5, 1, 1)
# args: a = rand((M, K), fp16); b = rand((N, K), fp16); c = empty((M, N), fp16); M = 100; N = 72; K = 80
# check: c == (a @ b.T).astype(np.float16)
# tol: 1e-2
#
# kernel: persistent_desc_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, 64, 128, 32, 2, 3, 1
# grid: (3, 1, 1)
# args: a = rand((M, K), fp16); b = rand((N, K), fp16); c = empty((M, N), fp16); M = 192; N = 256; K = 64
# check: c == (a @ b.T).astype(np.float16)
# tol: 1e-2
