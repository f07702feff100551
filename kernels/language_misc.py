"""
The rest of the pointwise language in one kernel file: a grid-stride loop over
tl.num_programs, cache modifiers and eviction hints, tl.full/tl.zeros,
tl.cdiv, tl.static_assert, annotated constexpr locals, narrow and wide integer
types (u8, i16, u16, i64), bool tensors in memory, bf16 arithmetic, fp64
square roots, integer min/max, masked bool loads whose `other` is True, and
right shifts of signed values by unsigned amounts (arithmetic, as Triton:
the signedness of x decides, not the type the operands promote to), and
one-element tensors as scalars (x.item(), and as an `if` condition).
"""
import triton
import triton.language as tl

SCALE = tl.constexpr(3)


@triton.jit
def _clamp_u8(x):
    return tl.minimum(tl.maximum(x, 0), 255).to(tl.uint8)


@triton.jit
def grid_stride_kernel(x_ptr, flags_ptr, out_ptr, n, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 128 == 0, "BLOCK must be a multiple of 128")
    pid = tl.program_id(axis=0)
    step: tl.constexpr = BLOCK * 1
    n_blocks = tl.cdiv(n, step)
    for b in range(pid, n_blocks, tl.num_programs(0)):
        offs = b * step + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0, cache_modifier=".cg")        # i16
        flag = tl.load(flags_ptr + offs, mask=mask, other=False, eviction_policy="evict_first")  # bool
        y = tl.where(flag, x.to(tl.int64) * SCALE, -x.to(tl.int64))
        y = max(y, tl.full((BLOCK,), -1000, tl.int64))
        tl.store(out_ptr + offs, y, mask=mask, cache_modifier=".cs")


@triton.jit
def narrow_types_kernel(a_ptr, h_ptr, d_ptr, u8_ptr, u16_ptr, bf_ptr, sq_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)                  # u8
    h = tl.load(h_ptr + offs, mask=mask, other=0.0)                # bf16
    d = tl.load(d_ptr + offs, mask=mask, other=1.0)                # fp64
    tl.store(u8_ptr + offs, _clamp_u8(a.to(tl.int32) * 2 - 60), mask=mask)
    wide = (a.to(tl.uint16) << 8) | a.to(tl.uint16)
    tl.store(u16_ptr + offs, wide, mask=mask, eviction_policy="evict_last")
    acc = tl.zeros((BLOCK,), tl.bfloat16) + h * h
    tl.store(bf_ptr + offs, acc, mask=mask)
    tl.store(sq_ptr + offs, tl.sqrt(tl.abs(d)) + d / 3.0, mask=mask)

@triton.jit
def mixed_sign_kernel(flags_ptr, flags_out_ptr, x_ptr, s_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    f = tl.load(flags_ptr + offs, mask=offs < n, other=True)   # bool; masked-off lanes are True
    tl.store(flags_out_ptr + offs, f)
    x = tl.load(x_ptr + offs)                                   # i8
    s = tl.load(s_ptr + offs)                                   # u8
    tl.store(y_ptr + offs, x >> s)                              # int8 >> uint8: uint8, shifted arithmetically
    tl.store(z_ptr + offs, x >> s.to(tl.uint16))                # int8 >> uint16: uint16, the same

@triton.jit
def unsplat_kernel(x_ptr, out_ptr, EXPLICIT: tl.constexpr):
    pid = tl.program_id(0)
    v = tl.load(x_ptr + pid + tl.arange(0, 1))     # a one-element tensor
    big = v > 42
    if EXPLICIT:
        big = big.item()
    if big:                                        # a one-element condition stands for its element
        tl.store(out_ptr + pid, 42)
    else:
        tl.store(out_ptr + pid, v.item() * 2)

# kernel: grid_stride_kernel
# signature: *i16:16, *i1:16, *i64:16, i32, 256
# grid: (7, 1, 1)
# args: x = randint(-3000, 3000, n, i16); flags = randint(0, 2, n, i1); out = empty(n, i64); n = 10000
# bench_args: x = randint(-3000, 3000, n, i16); flags = randint(0, 2, n, i1); out = empty(n, i64); n = 1 << 25
# bench_grid: (1024, 1, 1)
# torch: out = torch.clamp(torch.where(flags, x.long() * 3, -x.long()), min=-1000)
# check: out == np.maximum(np.where(flags, x * 3, -x), -1000)
# tol: 0
#
# kernel: narrow_types_kernel
# signature: *u8:16, *bf16:16, *fp64:16, *u8:16, *u16:16, *bf16:16, *fp64:16, i32, 512
# grid: (cdiv(n, 512), 1, 1)
# args: a = randint(0, 256, n, u8); h = rand(n, bf16); d = rand(n, fp64); u8o = empty(n, u8); u16o = empty(n, u16); bfo = empty(n, bf16); sq = empty(n, fp64); n = 3000
# bench_args: a = randint(0, 256, n, u8); h = rand(n, bf16); d = rand(n, fp64); u8o = empty(n, u8); u16o = empty(n, u16); bfo = empty(n, bf16); sq = empty(n, fp64); n = 1 << 24
# torch: u8o = torch.clamp(a.int() * 2 - 60, 0, 255).to(torch.uint8); u16o = (a.int() * 257).to(torch.uint16); bfo = h * h; sq = torch.sqrt(d.abs()) + d / 3.0
# check: u8o == np.clip(a * 2 - 60, 0, 255); u16o == a * 257; bfo == h * h; sq == np.sqrt(np.abs(d)) + d / 3
# tol: bfo: 8e-3; sq: 1e-7
#
# kernel: mixed_sign_kernel
# signature: *i1:16, *i1:16, *i8:16, *u8:16, *u8:16, *u16:16, i32, 512
# grid: (1, 1, 1)
# args: flags = randint(0, 2, 512, i1); fo = empty(512, i1); x = randint(-128, 128, 512, i8); s = randint(0, 8, 512, u8); y = empty(512, u8); z = empty(512, u16); n = 509
# check: fo == np.where(np.arange(512) < 509, flags, 1); y == ((x >> s) + 256) % 256; z == ((x >> s) + 65536) % 65536
# tol: 0
#
# kernel: unsplat_kernel
# signature: *i32:16, *i32:16, True
# grid: (64, 1, 1)
# args: x = randint(0, 100, 64, i32); out = empty(64, i32)
# check: out == np.where(x > 42, 42, x * 2)
# tol: 0
#
# kernel: unsplat_kernel
# signature: *i32:16, *i32:16, False
# grid: (64, 1, 1)
# args: x = randint(0, 100, 64, i32); out = empty(64, i32)
# check: out == np.where(x > 42, 42, x * 2)
# tol: 0
