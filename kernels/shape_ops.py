"""
Shape operations: tl.trans / permute / .T, reshape / view / ravel, join /
split / interleave, cat, broadcast_to / broadcast, expand_dims, flip, and
tl.sort / tl.topk along the last dim (Triton's bitonic network, built from
reshape, trans, split and join).
None of
them moves data in the IR's meaning; the layout pass derives each result's
layout from its operand's, so most are free (registers renamed), and a
transposed store gets one convert_layout through shared memory.
"""
import triton
import triton.language as tl


@triton.jit
def trans_copy_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # x is M x N row-major; out = x.T (N x M) row-major
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    t = tl.trans(x)
    rn2 = tl.arange(0, N)
    rm2 = tl.arange(0, M)
    tl.store(out_ptr + rn2[:, None] * M + rm2[None, :], t)


@triton.jit
def transpose_tiles_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # a tiled out-of-place transpose with .T and masks
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0)
    tl.store(out_ptr + rn[:, None] * M + rm[None, :], x.T, mask=mask.T)


@triton.jit
def reshape_kernel(x_ptr, flat_ptr, back_ptr, rav_ptr, M: tl.constexpr, N: tl.constexpr):
    # 2-D -> 1-D (reshape, ravel) and 1-D -> 2-D (view, a tuple shape)
    r = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + r)
    f = tl.reshape(x, M * N) + 1
    tl.store(flat_ptr + tl.arange(0, M * N), f)
    b = f.reshape((N, M)) * 2
    tl.store(back_ptr + tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :], b)
    v = tl.view(b, N * M)
    first = tl.reshape(tl.load(x_ptr + tl.arange(0, 1)), ())   # a 1-element tile unsplatted
    tl.store(rav_ptr + tl.arange(0, M * N), tl.ravel(v.reshape(M, N)) - first)


@triton.jit
def permute3_kernel(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    # x is A x B x C; out = x.permute(2, 0, 1) (C x A x B), and a 3-D trans
    ia = tl.arange(0, A)[:, None, None]
    ib = tl.arange(0, B)[None, :, None]
    ic = tl.arange(0, C)[None, None, :]
    x = tl.load(x_ptr + ia * B * C + ib * C + ic)
    p = tl.permute(x, (2, 0, 1))
    jc = tl.arange(0, C)[:, None, None]
    ja = tl.arange(0, A)[None, :, None]
    jb = tl.arange(0, B)[None, None, :]
    q = tl.trans(p, 0, 2, 1)          # C x B x A
    r = q.permute(0, 2, 1)            # back to C x A x B
    tl.store(out_ptr + jc * A * B + ja * B + jb, p + r)


@triton.jit
def join_split_kernel(a_ptr, b_ptr, j_ptr, s0_ptr, s1_ptr, i_ptr, sc_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    j = tl.join(a, b)                                  # N x 2
    tl.store(j_ptr + offs[:, None] * 2 + tl.arange(0, 2)[None, :], j)
    lo, hi = tl.split(j * 3)
    tl.store(s0_ptr + offs, lo)
    tl.store(s1_ptr + offs, hi - lo)
    tl.store(i_ptr + tl.arange(0, 2 * N), tl.interleave(b, a))
    hi_a, lo_b = tl.split(tl.join(tl.max(a, 0), tl.min(b, 0)))  # scalars: [2] and back
    tl.store(sc_ptr, hi_a)
    tl.store(sc_ptr + 1, lo_b)


@triton.jit
def split_rows_kernel(x_ptr, a_ptr, b_ptr, M: tl.constexpr, N: tl.constexpr):
    # x is M x 2N; its even and odd columns, through reshape + split
    r = tl.arange(0, M)[:, None] * (2 * N) + tl.arange(0, 2 * N)[None, :]
    x = tl.load(x_ptr + r)
    even, odd = x.reshape(M, N, 2).split()
    o = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(a_ptr + o, even)
    tl.store(b_ptr + o, odd)


@triton.jit
def cat_kernel(a_ptr, b_ptr, out_ptr, out2_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    a = tl.load(a_ptr + r)
    b = tl.load(b_ptr + r)
    c = tl.cat(a, b, can_reorder=True)                 # 2M x N, a's rows then b's
    tl.store(out_ptr + tl.arange(0, 2 * M)[:, None] * N + tl.arange(0, N)[None, :], c)
    d = tl.cat(a, b, dim=1)                            # M x 2N
    tl.store(out2_ptr + tl.arange(0, M)[:, None] * (2 * N) + tl.arange(0, 2 * N)[None, :], d)


@triton.jit
def broadcast_kernel(x_ptr, y_ptr, out_ptr, out2_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))               # N
    y = tl.load(y_ptr + tl.arange(0, M))               # M
    xb = tl.broadcast_to(x[None, :], (M, N))
    ye = tl.expand_dims(y, 1).broadcast_to(M, N)
    o = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(out_ptr + o, xb * 2 + ye)
    e = tl.expand_dims(x, (0, -1))                     # 1 x N x 1
    p, q = tl.broadcast(e, tl.expand_dims(y, (1, 2)))  # both M x N x 1
    tl.store(out2_ptr + tl.reshape(o, (M, N, 1)), p - q)


@triton.jit
def flip_kernel(x_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, DIM: tl.constexpr):
    om, on, ok = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    off = om[:, None, None] * (N * K) + on[None, :, None] * K + ok[None, None, :]
    tl.store(z_ptr + off, tl.flip(tl.load(x_ptr + off), DIM))


# kernel: trans_copy_kernel
# signature: *fp32:16, *fp32:16, 64, 32
# grid: (1, 1, 1)
# args: x = rand((64, 32), fp32); out = empty((32, 64), fp32)
# check: out == x.T
# tol: 0
#
# kernel: trans_copy_kernel
# signature: *fp16:16, *fp16:16, 16, 64
# num_warps: 1
# grid: (1, 1, 1)
# args: x = rand((16, 64), fp16); out = empty((64, 16), fp16)
# check: out == np.transpose(x)
# tol: 0
#
# kernel: transpose_tiles_kernel
# signature: *i32:16, *i32:16, i32, i32, 32, 64
# grid: (cdiv(M, 32), cdiv(N, 64), 1)
# args: x = randint(-1000, 1000, (M, N), i32); out = empty((N, M), i32); M = 100; N = 70
# bench_args: x = randint(-1000, 1000, (M, N), i32); out = empty((N, M), i32); M = 8192; N = 8192
# torch: out = x.t().contiguous()
# check: out == x.T
# tol: 0
#
# kernel: reshape_kernel
# signature: *fp32:16, *fp32:16, *fp32:16, *fp32:16, 16, 32
# grid: (1, 1, 1)
# args: x = rand((16, 32), fp32); flat = empty(512, fp32); back = empty((32, 16), fp32); rav = empty(512, fp32)
# check: flat == x.reshape(512) + 1; back == ((x + 1) * 2).reshape(32, 16); rav == ((x + 1) * 2).ravel() - x[0, 0]
# tol: 1e-6
#
# kernel: reshape_kernel
# signature: *i32:16, *i32:16, *i32:16, *i32:16, 8, 4
# num_warps: 1
# grid: (1, 1, 1)
# args: x = randint(-50, 50, (8, 4), i32); flat = empty(32, i32); back = empty((4, 8), i32); rav = empty(32, i32)
# check: flat == x.reshape(32) + 1; back == ((x + 1) * 2).reshape(4, 8); rav == ((x + 1) * 2).ravel() - x[0, 0]
# tol: 0
#
# kernel: permute3_kernel
# signature: *fp32:16, *fp32:16, 4, 8, 16
# grid: (1, 1, 1)
# args: x = rand((4, 8, 16), fp32); out = empty((16, 4, 8), fp32)
# check: out == np.transpose(x, (2, 0, 1)) * 2
# tol: 0
#
# kernel: permute3_kernel
# signature: *i32:16, *i32:16, 2, 16, 4
# num_warps: 1
# grid: (1, 1, 1)
# args: x = randint(-100, 100, (2, 16, 4), i32); out = empty((4, 2, 16), i32)
# check: out == np.transpose(x, (2, 0, 1)) * 2
# tol: 0
#
# kernel: join_split_kernel
# signature: *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, 256
# grid: (1, 1, 1)
# args: a = rand(256, fp32); b = rand(256, fp32); j = empty((256, 2), fp32); s0 = empty(256, fp32); s1 = empty(256, fp32); i = empty(512, fp32); sc = empty(2, fp32)
# check: j == np.stack((a, b), axis=1); s0 == a * 3; s1 == b * 3 - a * 3; i == np.stack((b, a), axis=1).reshape(512); sc == np.array((a.max(), b.min()))
# tol: j: 0; i: 0; sc: 0; s0: 1e-6; s1: 1e-6
#
# kernel: join_split_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp16:16, 64
# num_warps: 1
# grid: (1, 1, 1)
# args: a = rand(64, fp16); b = rand(64, fp16); j = empty((64, 2), fp16); s0 = empty(64, fp16); s1 = empty(64, fp16); i = empty(128, fp16); sc = empty(2, fp16)
# check: j == np.stack((a, b), axis=1); s0 == a * 3; s1 == b * 3 - a * 3; i == np.stack((b, a), axis=1).reshape(128); sc == np.array((a.max(), b.min()))
# tol: s1: 4e-3; s0: 1e-3; sc: 0
#
# kernel: split_rows_kernel
# signature: *i32:16, *i32:16, *i32:16, 16, 32
# grid: (1, 1, 1)
# args: x = randint(-1000, 1000, (16, 64), i32); a = empty((16, 32), i32); b = empty((16, 32), i32)
# check: a == x.reshape(16, 32, 2)[:, :, 0]; b == x.reshape(16, 32, 2)[:, :, 1]
# tol: 0
#
# kernel: cat_kernel
# signature: *fp32:16, *fp32:16, *fp32:16, *fp32:16, 8, 64
# grid: (1, 1, 1)
# args: a = rand((8, 64), fp32); b = rand((8, 64), fp32); out = empty((16, 64), fp32); out2 = empty((8, 128), fp32)
# check: out == np.concatenate((a, b), axis=0); out2 == np.concatenate((a, b), axis=1)
# tol: 0
#
# kernel: cat_kernel
# signature: *i32:16, *i32:16, *i32:16, *i32:16, 4, 16
# num_warps: 1
# grid: (1, 1, 1)
# args: a = randint(-9, 9, (4, 16), i32); b = randint(-9, 9, (4, 16), i32); out = empty((8, 16), i32); out2 = empty((4, 32), i32)
# check: out == np.concatenate((a, b), axis=0); out2 == np.concatenate((a, b), axis=1)
# tol: 0
#
# kernel: broadcast_kernel
# signature: *fp32:16, *fp32:16, *fp32:16, *fp32:16, 32, 64
# grid: (1, 1, 1)
# args: x = rand(64, fp32); y = rand(32, fp32); out = empty((32, 64), fp32); out2 = empty((32, 64), fp32)
# check: out == x[None, :] * 2 + y[:, None]; out2 == x[None, :] - y[:, None]
# tol: 1e-6
#
# kernel: flip_kernel
# signature: *fp32:16, *fp32:16, 1, 16, 64, 2
# num_warps: 8
# grid: (1, 1, 1)
# args: x = randn(1024, fp32); z = empty(1024, fp32)
# check: z == np.flip(x.reshape((1, 16, 64)), 2).reshape(1024)
# tol: 0
#
# kernel: flip_kernel
# signature: *fp32:16, *fp32:16, 8, 2, 256, None
# num_warps: 8
# grid: (1, 1, 1)
# args: x = randn(4096, fp32); z = empty(4096, fp32)
# check: z == np.flip(x.reshape((8, 2, 256)), -1).reshape(4096)
# tol: 0
#
# kernel: flip_kernel
# signature: *i32:16, *i32:16, 32, 1, 2, 0
# num_warps: 8
# grid: (1, 1, 1)
# args: x = randint(-1000, 1000, 64, i32); z = empty(64, i32)
# check: z == np.flip(x.reshape((32, 1, 2)), 0).reshape(64)
# tol: 0
#
# kernel: flip_kernel
# signature: *bf16:16, *bf16:16, 128, 8, 1, -2
# num_warps: 8
# grid: (1, 1, 1)
# args: x = randn(1024, bf16); z = empty(1024, bf16)
# check: z == np.flip(x.reshape((128, 8, 1)), -2).reshape(1024)
# tol: 0
#
# kernel: flip_kernel
# signature: *fp16:16, *fp16:16, 8, 16, 4, 1
# num_warps: 4
# grid: (1, 1, 1)
# args: x = randn(512, fp16); z = empty(512, fp16)
# check: z == np.flip(x.reshape((8, 16, 4)), 1).reshape(512)
# tol: 0
#
# kernel: flip_kernel
# signature: *i1:16, *i1:16, 4, 4, 32, -1
# num_warps: 4
# grid: (1, 1, 1)
# args: x = randint(0, 2, 512, i1); z = empty(512, i1)
# check: z == np.flip(x.reshape((4, 4, 32)), -1).reshape(512)
# tol: 0


@triton.jit
def sort_kernel(x_ptr, asc_ptr, desc_ptr, top_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    x = tl.load(x_ptr + rows * N + tl.arange(0, N)[None, :])
    tl.store(asc_ptr + rows * N + tl.arange(0, N)[None, :], tl.sort(x))
    tl.store(desc_ptr + rows * N + tl.arange(0, N)[None, :], tl.sort(x, dim=1, descending=True))
    tl.store(top_ptr + rows * K + tl.arange(0, K)[None, :], tl.topk(x, K))


# kernel: sort_kernel
# signature: *fp32, *fp32, *fp32, *fp32, 4, 64, 8
# grid: (1, 1, 1)
# args: x = randn((4, 64), fp32); a = empty((4, 64), fp32); d = empty((4, 64), fp32); t = empty((4, 8), fp32)
# check: a == np.sort(x); d == np.flip(np.sort(x), axis=1); t == np.flip(np.sort(x), axis=1)[:, :8]
# tol: 0
#
# kernel: sort_kernel
# signature: *i32, *i32, *i32, *i32, 2, 128, 1
# num_warps: 8
# grid: (1, 1, 1)
# args: x = randint(-50, 50, (2, 128), i32); a = empty((2, 128), i32); d = empty((2, 128), i32); t = empty((2, 1), i32)
# check: a == np.sort(x); d == np.flip(np.sort(x), axis=1); t == np.flip(np.sort(x), axis=1)[:, :1]
# tol: 0
#
# kernel: sort_kernel
# signature: *fp16, *fp16, *fp16, *fp16, 8, 64, 8
# num_warps: 8
# grid: (1, 1, 1)
# args: x = randn((8, 64), fp16); a = empty((8, 64), fp16); d = empty((8, 64), fp16); t = empty((8, 8), fp16)
# check: a == np.sort(x); d == np.flip(np.sort(x), axis=1); t == np.flip(np.sort(x), axis=1)[:, :8]
# tol: 0
#
# kernel: sort_kernel
# signature: *u8, *u8, *u8, *u8, 1, 16, 16
# grid: (1, 1, 1)
# args: x = randint(0, 255, (1, 16), u8); a = empty((1, 16), u8); d = empty((1, 16), u8); t = empty((1, 16), u8)
# check: a == np.sort(x); d == np.flip(np.sort(x), axis=1); t == np.flip(np.sort(x), axis=1)
# tol: 0


@triton.jit
def gather_kernel(src_ptr, idx_ptr, out_ptr, S0: tl.constexpr, S1: tl.constexpr, I0: tl.constexpr,
                  I1: tl.constexpr, AXIS: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, S0)[:, None] * S1 + tl.arange(0, S1)[None, :])
    idx = tl.load(idx_ptr + tl.arange(0, I0)[:, None] * I1 + tl.arange(0, I1)[None, :])
    tl.store(out_ptr + tl.arange(0, I0)[:, None] * I1 + tl.arange(0, I1)[None, :], tl.gather(src, idx, AXIS))


# kernel: gather_kernel
# signature: *fp32, *i64, *fp32, 32, 16, 64, 16, 0
# grid: (1, 1, 1)
# args: src = randn((32, 16), fp32); idx = randint(0, 32, (64, 16), i64); out = empty((64, 16), fp32)
# check: out == np.take_along_axis(src, idx, 0)
# tol: 0
#
# kernel: gather_kernel
# signature: *i16, *i32, *i16, 8, 64, 8, 128, 1
# num_warps: 8
# grid: (1, 1, 1)
# args: src = randint(-100, 100, (8, 64), i16); idx = randint(0, 64, (8, 128), i32); out = empty((8, 128), i16)
# check: out == np.take_along_axis(src, idx, 1)
# tol: 0
