"""
Block pointers and tensor descriptors: tiles addressed by a base, a shape,
strides and offsets instead of tiles of pointers.

block_ptr_matmul_kernel is a matmul over tl.make_block_ptr operands moved
along K by tl.advance; boundary_check masks the edges (zero padding), and
the strides may make either operand column-major. block_ptr_pad_kernel
reads a block that overhangs the shape with padding_option PAD ("zero" or
"nan", or none: only the checked dims are masked) and writes it whole.
desc_matmul_kernel makes tensor descriptors in the kernel
(tl.make_tensor_descriptor) and multiplies a by b given as N x K, read
through .T; desc.store writes only what lies inside the shape.
desc_reduce_kernel combines blocks into memory through a descriptor
(desc.atomic_add / atomic_max / atomic_xor), the parts past the shape left
alone.
desc_nd_copy_kernel copies the block at the origin of a descriptor of any
rank whose shape, strides and block shape come as tuple arguments (as
Triton's tests pass them), zeros past the shape.
host_desc_matmul_kernel takes the descriptors from the host
(TensorDescriptor; test/gpu/test_python.py and test/python run it, as test
blocks pass pointers and scalars only).
"""
import triton
import triton.language as tl


@triton.jit
def block_ptr_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                            stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                            BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_block = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_block = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                                offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_block, boundary_check=(0, 1))
        b = tl.load(b_block, boundary_check=(0, 1), padding_option="zero")
        acc += tl.dot(a, b)
        a_block = tl.advance(a_block, (0, BLOCK_K))
        b_block = tl.advance(b_block, (BLOCK_K, 0))
    c_block = tl.make_block_ptr(base=c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                                offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N),
                                order=(1, 0))
    tl.store(c_block, acc.to(tl.float16), boundary_check=(0, 1))


@triton.jit
def block_ptr_pad_kernel(x_ptr, out_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                         PAD: tl.constexpr):
    x_block = tl.make_block_ptr(x_ptr, (M, N), (stride, 1), (0, 0), (BLOCK_M, BLOCK_N), (1, 0))
    x_block = tl.advance(x_block, (tl.program_id(0) * BLOCK_M, tl.program_id(1) * BLOCK_N))
    if PAD == "":
        x = tl.load(x_block, boundary_check=(1,))
    else:
        x = tl.load(x_block, boundary_check=(0, 1), padding_option=PAD)
    # out is the whole buffer: every element of the block is written
    rows = tl.cdiv(M, BLOCK_M) * BLOCK_M
    out_block = tl.make_block_ptr(out_ptr, (rows, stride), (stride, 1),
                                  (tl.program_id(0) * BLOCK_M, tl.program_id(1) * BLOCK_N), (BLOCK_M, BLOCK_N),
                                  (1, 0))
    tl.store(out_block, x)


@triton.jit
def desc_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([pid_n * BLOCK_N, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


@triton.jit
def desc_reduce_kernel(out_ptr, a_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    desc = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    m = tl.program_id(0) * BLOCK_M
    n = tl.program_id(1) * BLOCK_N
    rows = m + tl.arange(0, BLOCK_M)[:, None]
    cols = n + tl.arange(0, BLOCK_N)[None, :]
    a = tl.load(a_ptr + rows * N + cols, mask=(rows < M) & (cols < N), other=0)
    desc.atomic_add([m, n], a)
    desc.atomic_max([m, n], a * 3)
    desc.atomic_xor([m, n], a)


@triton.jit
def desc_nd_copy_kernel(out_ptr, a_ptr, shape, strides, BLOCK_SHAPE):
    desc = tl.make_tensor_descriptor(a_ptr, shape=shape, strides=strides, block_shape=BLOCK_SHAPE)
    tl.static_assert(isinstance(desc, tl.tensor_descriptor) and not isinstance(shape, tl.tensor_descriptor))
    ndim: tl.constexpr = len(BLOCK_SHAPE)
    # the block's row-major offsets: each dim's arange, reshaped to lie along that dim
    offs = tl.zeros(BLOCK_SHAPE, tl.int32)
    step = 1
    for k in tl.static_range(ndim - 1, -1, -1):
        offs += tl.reshape(tl.arange(0, BLOCK_SHAPE[k]), (1, ) * k + (BLOCK_SHAPE[k], ) + (1, ) * (ndim - 1 - k)) * step
        step *= BLOCK_SHAPE[k]
    tl.store(out_ptr + offs, desc.load((0, ) * ndim))


@triton.jit
def host_desc_matmul_kernel(a_desc, b_desc, c_desc, K, BLOCK_K: tl.constexpr):
    BLOCK_M: tl.constexpr = a_desc.block_shape[0]
    BLOCK_N: tl.constexpr = b_desc.block_shape[0]
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([pid_n * BLOCK_N, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(c_desc.dtype))

# kernel: block_ptr_matmul_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1, 64, 64, 32
# grid: (cdiv(M, 64), cdiv(N, 64), 1)
# args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 100; N = 72; K = 70; stride_am = K; stride_bk = N; stride_cm = N
# check: c == (a @ b).astype(np.float16)
# tol: 1e-2
#
# kernel: block_ptr_matmul_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:1, i32:16, i32:16, i32:1, 64, 64, 32
# grid: (cdiv(M, 64), cdiv(N, 64), 1)
# args: a = rand((M, K), fp16); b = rand((N, K), fp16); c = empty((M, N), fp16); M = 128; N = 64; K = 96; stride_am = K; stride_bn = K; stride_cm = N
# check: c == (a @ b.T).astype(np.float16)
# tol: 1e-2
#
# kernel: block_ptr_pad_kernel
# signature: *fp32:16, *fp32:16, i32, i32, i32:16, 16, 32, 'nan'
# grid: (cdiv(M, 16), cdiv(N, 32), 1)
# args: x = rand((48, 64), fp32); out = empty((48, 64), fp32); M = 37; N = 50; stride = 64
# check: out == np.where((np.arange(48)[:, None] < M) & (np.arange(64)[None, :] < N), x, np.nan)
# tol: 0
#
# kernel: block_ptr_pad_kernel
# signature: *fp32:16, *fp32:16, i32, i32, i32:16, 16, 32, 'zero'
# grid: (cdiv(M, 16), cdiv(N, 32), 1)
# args: x = rand((48, 64), fp32); out = empty((48, 64), fp32); M = 37; N = 50; stride = 64
# check: out == np.where((np.arange(48)[:, None] < M) & (np.arange(64)[None, :] < N), x, 0)
# tol: 0
#
# kernel: block_ptr_pad_kernel
# signature: *i1:16, *i1:16, i32, i32, i32:16, 16, 32, 'zero'
# grid: (cdiv(M, 16), cdiv(N, 32), 1)
# args: x = randint(0, 2, (48, 64), i1); out = empty((48, 64), i1); M = 37; N = 50; stride = 64
# check: out == np.where((np.arange(48)[:, None] < M) & (np.arange(64)[None, :] < N), x, 0)
# tol: 0
#
# kernel: block_ptr_pad_kernel
# signature: *fp32:16, *fp32:16, i32, i32, i32:16, 16, 32, ''
# grid: (cdiv(M, 16), cdiv(N, 32), 1)
# args: x = rand((48, 64), fp32); out = empty((48, 64), fp32); M = 48; N = 50; stride = 64
# check: out == np.where(np.arange(64)[None, :] < N, x, 0)
# tol: 0
#
# kernel: desc_matmul_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, 64, 64, 32
# grid: (cdiv(M, 64), cdiv(N, 64), 1)
# args: a = rand((M, K), fp16); b = rand((N, K), fp16); c = empty((M, N), fp16); M = 128; N = 128; K = 96
# check: c == (a @ b.T).astype(np.float16)
# tol: 1e-2
#
# kernel: desc_matmul_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, 128, 128, 16
# num_warps: 8
# grid: (cdiv(M, 128), cdiv(N, 128), 1)
# args: a = rand((M, K), fp16); b = rand((N, K), fp16); c = empty((M, N), fp16); M = 128; N = 256; K = 80
# check: c == (a @ b.T).astype(np.float16)
# tol: 1e-2
#
# kernel: desc_matmul_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32, i32, i32, 64, 64, 32
# grid: (cdiv(M, 64), cdiv(N, 64), 1)
# args: a = rand((M, K), fp16); b = rand((N, K), fp16); c = empty((M, N), fp16); M = 100; N = 72; K = 80
# check: c == (a @ b.T).astype(np.float16)
# tol: 1e-2
#
# kernel: desc_reduce_kernel
# signature: *i32:16, *i32:16, i32, i32:16, 16, 32
# grid: (cdiv(M, 16), cdiv(N, 32), 1)
# args: out = randint(-1000, 1000, (M, N), i32); a = randint(-1000, 1000, (M, N), i32); M = 37; N = 48
# check: out == np.maximum(out + a, a * 3) ^ a
# tol: 0
#
# kernel: desc_nd_copy_kernel
# signature: *fp32:16, *fp32:16, (i32, i32, i32), (i32:16, i32:16, 1), (2, 4, 32)
# grid: (1, 1, 1)
# args: out = empty((2, 4, 32), fp32); a = rand((2, 4, 32), fp32); shape = (2, 3, 29); strides = (128, 32, 1)
# check: out == np.where((np.arange(4)[None, :, None] < 3) & (np.arange(32)[None, None, :] < 29), a, 0)
# tol: 0
#
# kernel: desc_nd_copy_kernel
# signature: *i16:16, *i16:16, (1, i32, 3, i32, i32), (i32:16, i32:16, i32:16, i32:16, 1), (2, 2, 4, 8, 32)
# grid: (1, 1, 1)
# args: out = empty((2, 2, 4, 8, 32), i16); a = randint(-99, 99, (2, 2, 4, 8, 32), i16); shape = (1, 2, 3, 7, 29); strides = (2048, 1024, 256, 32, 1)
# check: out == np.where((np.arange(2)[:, None, None, None, None] < 1) & (np.arange(4)[None, None, :, None, None] < 3) & (np.arange(8)[None, None, None, :, None] < 7) & (np.arange(32) < 29), a, 0)
# tol: 0
#
# kernel: host_desc_matmul_kernel
# signature: tensordesc<fp16[64, 32]>:16, tensordesc<fp16[64, 32]>:16, tensordesc<fp16[64, 64]>:16, i32, 32
# grid: (2, 1, 1)
# args: a = desc(rand((128, 96), fp16), (64, 32)); b = desc(rand((64, 96), fp16), (64, 32)); c = desc(empty((128, 64), fp16), (64, 64)); K = 96
# check: c == (a @ b.T).astype(np.float16)
# tol: 1e-2
#
# kernel: host_desc_matmul_kernel
# signature: tensordesc<fp16[64, 32]>, tensordesc<fp16[64, 32]>, tensordesc<fp16[64, 64]>, i32, 32
# grid: (2, 2, 1)
# args: a = desc(rand((100, 88), fp16), (64, 32), 0, (100, 72)); b = desc(rand((72, 88), fp16), (64, 32), 0, (72, 72)); c = desc(empty((100, 72), fp16), (64, 64)); K = 72
# check: c == (a[:, :72] @ b[:, :72].T).astype(np.float16)
# tol: 1e-2
