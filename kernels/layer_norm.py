"""
Layer normalization, as in Triton's tutorial: the forward pass normalizes one
row per program (mean, then variance from the centered values, rstd =
1/sqrt(var + eps)), walking the row in BLOCK_SIZE chunks, keeping the row's
mean and rstd for the backward pass, and writing y = (x - mean) * rstd * w + b.
Inputs and outputs are fp16, the arithmetic fp32.

The backward pass has two kernels and no atomics. The first gives dx for
each row and the partial dw, db sums: program g takes the rows g, g + GROUP,
g + 2 GROUP, ... one after the other, adds up dy * x_hat and dy over them in
registers, and writes its partial sums to row g of [GROUP, N] buffers. The
second sums those GROUP partial rows column by column into dw and db.

Sizes as the tutorial picks them: BLOCK_SIZE the next power of two of N (at
most 64 KB of the row per chunk), num_warps = min(max(BLOCK_SIZE // 256, 1), 8).
"""
import triton
import triton.language as tl


@triton.jit
def layer_norm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    # the mean: a running sum of chunks, one reduction at the end
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    # the variance of the centered values (columns past N count as zero)
    acc_var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        d = tl.where(cols < N, x - mean, 0.)
        acc_var += d * d
    var = tl.sum(acc_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    # normalize, scale and shift
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(Y + cols, y, mask=mask)


@triton.jit
def layer_norm_bwd_dx_kernel(DX, DY, PDW, PDB, X, W, Mean, Rstd, stride, M, N, GROUP,
                             BLOCK_SIZE_N: tl.constexpr):
    # one program per group: rows g, g + GROUP, ...; the whole row in one chunk
    g = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    w = tl.load(W + cols, mask=mask, other=0.).to(tl.float32)
    dw = tl.zeros([BLOCK_SIZE_N], dtype=tl.float32)
    db = tl.zeros([BLOCK_SIZE_N], dtype=tl.float32)
    for row in range(g, M, GROUP):
        x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
        dy = tl.load(DY + row * stride + cols, mask=mask, other=0.).to(tl.float32)
        mean = tl.load(Mean + row)
        rstd = tl.load(Rstd + row)
        x_hat = tl.where(mask, (x - mean) * rstd, 0.)
        wdy = w * dy
        c1 = tl.sum(x_hat * wdy, axis=0) / N
        c2 = tl.sum(wdy, axis=0) / N
        dx = (wdy - (x_hat * c1 + c2)) * rstd
        tl.store(DX + row * stride + cols, dx, mask=mask)
        dw += dy * x_hat
        db += dy
    tl.store(PDW + g * N + cols, dw, mask=mask)
    tl.store(PDB + g * N + cols, db, mask=mask)


@triton.jit
def layer_norm_bwd_dwdb_kernel(PDW, PDB, DW, DB, GROUP, N,
                               BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    # each program sums BLOCK_SIZE_N columns of the GROUP partial rows
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for start in range(0, GROUP, BLOCK_SIZE_M):
        rows = start + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < GROUP) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(PDW + offs, mask=mask, other=0.)
        db += tl.load(PDB + offs, mask=mask, other=0.)
    tl.store(DW + cols, tl.sum(dw, axis=0), mask=cols < N)
    tl.store(DB + cols, tl.sum(db, axis=0), mask=cols < N)

# The reference in numpy: xc = x - mean (row-wise), rstd = 1 / sqrt(mean(xc^2) + eps).
#
# kernel: layer_norm_fwd_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, fp32, 1024
# num_warps: 4
# grid: 5
# args: x = randn((5, N), fp16); y = empty((5, N), fp16); w = rand(N, fp16); b = rand(N, fp16); mean = empty(5, fp32); rstd = empty(5, fp32); stride = N; N = 1000; eps = 1e-5
# bench_args: x = randn((4096, N), fp16); y = empty((4096, N), fp16); w = rand(N, fp16); b = rand(N, fp16); mean = empty(4096, fp32); rstd = empty(4096, fp32); stride = N; N = 1024; eps = 1e-5
# bench_grid: 4096
# torch: y = F.layer_norm(x, (N,), w, b, eps)
# check: mean == x.sum(axis=1) / N; rstd == 1 / np.sqrt(((x - (x.sum(axis=1) / N).reshape(5, 1)) ** 2).sum(axis=1) / N + eps); y == (x - (x.sum(axis=1) / N).reshape(5, 1)) / np.sqrt(((x - (x.sum(axis=1) / N).reshape(5, 1)) ** 2).sum(axis=1) / N + eps).reshape(5, 1) * w + b
# tol: y: 2e-3; mean: 1e-5; rstd: 1e-5
#
# kernel: layer_norm_fwd_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 4096
# num_warps: 8
# grid: 3
# args: x = randn((3, N), fp16); y = empty((3, N), fp16); w = rand(N, fp16); b = rand(N, fp16); mean = empty(3, fp32); rstd = empty(3, fp32); stride = N; N = 4096; eps = 1e-5
# bench_args: x = randn((4096, N), fp16); y = empty((4096, N), fp16); w = rand(N, fp16); b = rand(N, fp16); mean = empty(4096, fp32); rstd = empty(4096, fp32); stride = N; N = 4096; eps = 1e-5
# bench_grid: 4096
# torch: y = F.layer_norm(x, (N,), w, b, eps)
# check: mean == x.sum(axis=1) / N; rstd == 1 / np.sqrt(((x - (x.sum(axis=1) / N).reshape(3, 1)) ** 2).sum(axis=1) / N + eps); y == (x - (x.sum(axis=1) / N).reshape(3, 1)) / np.sqrt(((x - (x.sum(axis=1) / N).reshape(3, 1)) ** 2).sum(axis=1) / N + eps).reshape(3, 1) * w + b
# tol: y: 2e-3; mean: 1e-5; rstd: 1e-5
#
# kernel: layer_norm_fwd_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 8192
# num_warps: 8
# grid: 2
# args: x = randn((2, N), fp16); y = empty((2, N), fp16); w = rand(N, fp16); b = rand(N, fp16); mean = empty(2, fp32); rstd = empty(2, fp32); stride = N; N = 8192; eps = 1e-5
# bench_args: x = randn((4096, N), fp16); y = empty((4096, N), fp16); w = rand(N, fp16); b = rand(N, fp16); mean = empty(4096, fp32); rstd = empty(4096, fp32); stride = N; N = 8192; eps = 1e-5
# bench_grid: 4096
# torch: y = F.layer_norm(x, (N,), w, b, eps)
# check: mean == x.sum(axis=1) / N; rstd == 1 / np.sqrt(((x - (x.sum(axis=1) / N).reshape(2, 1)) ** 2).sum(axis=1) / N + eps); y == (x - (x.sum(axis=1) / N).reshape(2, 1)) / np.sqrt(((x - (x.sum(axis=1) / N).reshape(2, 1)) ** 2).sum(axis=1) / N + eps).reshape(2, 1) * w + b
# tol: y: 2e-3; mean: 1e-5; rstd: 1e-5
#
# Rows longer than the chunk: BLOCK_SIZE 256 walks a row of 1000 in four chunks, the last one partly masked.
# kernel: layer_norm_fwd_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, fp32, 256
# num_warps: 1
# grid: 4
# args: x = randn((4, N), fp16); y = empty((4, N), fp16); w = rand(N, fp16); b = rand(N, fp16); mean = empty(4, fp32); rstd = empty(4, fp32); stride = N; N = 1000; eps = 1e-5
# check: mean == x.sum(axis=1) / N; rstd == 1 / np.sqrt(((x - (x.sum(axis=1) / N).reshape(4, 1)) ** 2).sum(axis=1) / N + eps); y == (x - (x.sum(axis=1) / N).reshape(4, 1)) / np.sqrt(((x - (x.sum(axis=1) / N).reshape(4, 1)) ** 2).sum(axis=1) / N + eps).reshape(4, 1) * w + b
# tol: y: 2e-3; mean: 1e-5; rstd: 1e-5
#
# Backward, dx and the partial sums: mean and rstd are inputs here (any values: the formulas take them as given).
# The reference: x_hat = (x - mean) * rstd, wdy = w * dy, dx = (wdy - (x_hat * mean(x_hat * wdy) + mean(wdy))) * rstd;
# program g's partials sum dy * x_hat and dy over the rows r with r % GROUP == g.
# kernel: layer_norm_bwd_dx_kernel
# signature: *fp16:16, *fp16:16, *fp32:16, *fp32:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, i32, i32, 1024
# num_warps: 4
# grid: GROUP
# args: dx = empty((M, N), fp16); dy = randn((M, N), fp16); pdw = empty((GROUP, N), fp32); pdb = empty((GROUP, N), fp32); x = randn((M, N), fp16); w = rand(N, fp16); mean = rand(M, fp32) * 0.1; rstd = rand(M, fp32) * 0.5 + 1; stride = N; M = 11; N = 1000; GROUP = 4
# bench_args: dx = empty((M, N), fp16); dy = randn((M, N), fp16); pdw = empty((GROUP, N), fp32); pdb = empty((GROUP, N), fp32); x = randn((M, N), fp16); w = rand(N, fp16); mean = rand(M, fp32) * 0.1; rstd = rand(M, fp32) * 0.5 + 1; stride = N; M = 4096; N = 1024; GROUP = 256
# check: dx == (w * dy - ((x - mean.reshape(M, 1)) * rstd.reshape(M, 1) * ((x - mean.reshape(M, 1)) * rstd.reshape(M, 1) * w * dy).sum(axis=1).reshape(M, 1) / N + (w * dy).sum(axis=1).reshape(M, 1) / N)) * rstd.reshape(M, 1); pdw == (dy * (x - mean.reshape(M, 1)) * rstd.reshape(M, 1) * (np.arange(M).reshape(1, M) % GROUP == np.arange(GROUP).reshape(GROUP, 1)).reshape(GROUP, M, 1)).sum(axis=1); pdb == (dy * (np.arange(M).reshape(1, M) % GROUP == np.arange(GROUP).reshape(GROUP, 1)).reshape(GROUP, M, 1)).sum(axis=1)
# tol: dx: 2e-3; pdw: 1e-5; pdb: 1e-5
#
# kernel: layer_norm_bwd_dx_kernel
# signature: *fp16:16, *fp16:16, *fp32:16, *fp32:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32, i32:16, i32, 4096
# num_warps: 8
# grid: GROUP
# args: dx = empty((M, N), fp16); dy = randn((M, N), fp16); pdw = empty((GROUP, N), fp32); pdb = empty((GROUP, N), fp32); x = randn((M, N), fp16); w = rand(N, fp16); mean = rand(M, fp32) * 0.1; rstd = rand(M, fp32) * 0.5 + 1; stride = N; M = 5; N = 4096; GROUP = 2
# check: dx == (w * dy - ((x - mean.reshape(M, 1)) * rstd.reshape(M, 1) * ((x - mean.reshape(M, 1)) * rstd.reshape(M, 1) * w * dy).sum(axis=1).reshape(M, 1) / N + (w * dy).sum(axis=1).reshape(M, 1) / N)) * rstd.reshape(M, 1); pdw == (dy * (x - mean.reshape(M, 1)) * rstd.reshape(M, 1) * (np.arange(M).reshape(1, M) % GROUP == np.arange(GROUP).reshape(GROUP, 1)).reshape(GROUP, M, 1)).sum(axis=1); pdb == (dy * (np.arange(M).reshape(1, M) % GROUP == np.arange(GROUP).reshape(GROUP, 1)).reshape(GROUP, M, 1)).sum(axis=1)
# tol: dx: 2e-3; pdw: 1e-5; pdb: 1e-5
#
# Backward, the column sums of the partials (dw and db in fp16, summed in fp32).
# kernel: layer_norm_bwd_dwdb_kernel
# signature: *fp32:16, *fp32:16, *fp16:16, *fp16:16, i32, i32, 32, 128
# num_warps: 4
# grid: cdiv(N, 128)
# args: pdw = randn((GROUP, N), fp32); pdb = randn((GROUP, N), fp32); dw = empty(N, fp16); db = empty(N, fp16); GROUP = 45; N = 1000
# bench_args: pdw = randn((GROUP, N), fp32); pdb = randn((GROUP, N), fp32); dw = empty(N, fp16); db = empty(N, fp16); GROUP = 256; N = 8192
# torch: dw = pdw.sum(0); db = pdb.sum(0)
# check: dw == pdw.sum(axis=0); db == pdb.sum(axis=0)
# tol: 2e-3
