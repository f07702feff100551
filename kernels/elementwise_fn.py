"""
A function applied elementwise: tl.inline_asm_elementwise (the user's PTX,
one or several results, several 8-bit elements packed into one 32-bit
register, pointers as operands, an op with side effects) and
tl.map_elementwise (a @jit function with control flow, several results,
several elements per call).
"""
import triton
import triton.language as tl


@triton.jit
def asm_kernel(x_ptr, y_ptr, d_ptr, s_ptr, m_ptr, f_ptr, g_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    y = tl.load(y_ptr + offs, mask=mask, other=0)
    # two results, a scalar argument broadcast
    d, s = tl.inline_asm_elementwise(
        asm="""
        sub.u32 $0, $2, $3;   // x - y
        add.u32 $1, $2, $4;   // x + 5
        """,
        constraints="=r,=r,r,r,r", args=[x, y, 5], dtype=(tl.uint32, tl.uint32), is_pure=True, pack=1)
    tl.store(d_ptr + offs, d, mask=mask)
    tl.store(s_ptr + offs, s, mask=mask)
    # a float result from an integer and a float operand
    m = tl.inline_asm_elementwise("cvt.rn.f32.u32 $0, $1; max.f32 $0, $0, $2;", "=f,r,f",
                                  [x & 1023, y.to(tl.float32) * 0.5], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(m_ptr + offs, m, mask=mask)
    # a funnel shift (Triton's test_inline_asm), the amount a full tensor
    f = tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $2, $3;", "=r,r, r, r", [x, y, tl.full([BLOCK], 17, tl.int32)],
                                  dtype=tl.int32, is_pure=True, pack=1)
    tl.store(f_ptr + offs, f, mask=mask)
    # the asm's own registers, named as the kernel's are: they shadow them in its { }
    g = tl.inline_asm_elementwise("""
        .reg .b32 %r<2>;
        .reg .pred %p<2>;
        mov.b32 %r1, $1;
        setp.gt.s32 %p1, %r1, 50000;
        selp.b32 $0, %r1, 7, %p1;
        """, "=r,r", [x.to(tl.int32)], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(g_ptr + offs, g + x.to(tl.int32), mask=mask)

# kernel: asm_kernel
# signature: *u32:16, *u32:16, *u32:16, *u32:16, *fp32:16, *i32:16, *i32:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = randint(0, 100000, n, u32); y = randint(0, 100000, n, u32); d = empty(n, u32); s = empty(n, u32); m = empty(n, fp32); f = empty(n, i32); g = empty(n, i32); n = 1000
# torch: d = (x.long() - y.long()) % 2**32; s = x.long() + 5; m = torch.maximum((x.long() & 1023).float(), y.long().float() * 0.5); f = (((y.long() << 17) | (x.long() >> 15)) % 2**32).to(torch.int32); g = torch.where(x.long() > 50000, x.long(), 7) + x.long()
# check: d == wrap(x - y, u32); s == x + 5; m == np.maximum(x & 1023, y * 0.5); f == wrap((y << 17) | (x >> 15), i32); g == np.where(x > 50000, x, 7) + x
# tol: 0


@triton.jit
def asm_packed_kernel(x_ptr, y_ptr, h_ptr, i_ptr, w_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    # four 8-bit elements in one register
    y = tl.inline_asm_elementwise("and.b32 $0, $1, 0x1F1F1F1F; shl.b32 $0, $0, 3;", "=r,r", [x],
                                  dtype=tl.int8, is_pure=True, pack=4)
    tl.store(y_ptr + offs, y)
    # two 16-bit elements in one register, an 8-bit one widened
    h = x.to(tl.int16) * 100
    h2 = tl.inline_asm_elementwise("and.b32 $0, $1, 0xFFF0FFF0;", "=r,r", [h], dtype=tl.int16, is_pure=True, pack=2)
    tl.store(h_ptr + offs, h2)
    # results unpacked (pack=4 of int32 from four 8-bit operands in one register)
    i0 = tl.inline_asm_elementwise("""
        {
        .reg .b32 t<2>;
        mov.b32 t1, $4;
        bfe.s32 $0, t1, 0, 8;
        bfe.s32 $1, t1, 8, 8;
        bfe.s32 $2, $4, 16, 8;
        bfe.s32 $3, $4, 24, 8;
        }
        """, "=r,=r,=r,=r,r", [x], dtype=tl.int32, is_pure=True, pack=4)
    tl.store(i_ptr + offs, i0)
    # pointers as operands, an op with effects and an unused result
    tl.inline_asm_elementwise("ld.global.b8 $0, [$1]; shl.b32 $0, $0, 1; st.global.b8 [$2], $0;", "=r,l,l",
                              [x_ptr + offs, w_ptr + offs], dtype=tl.int8, is_pure=False, pack=1)

# kernel: asm_packed_kernel
# signature: *i8:16, *i8:16, *i16:16, *i32:16, *i8:16, 512
# grid: (1, 1, 1)
# args: x = randint(-128, 128, 512, i8); y = empty(512, i8); h = empty(512, i16); i = empty(512, i32); w = empty(512, i8)
# torch: y = ((x & 0x1F) << 3).to(torch.int8); h = (x.to(torch.int16) * 100) & -16; i = x.int(); w = (x.int() * 2).to(torch.int8)
# check: y == wrap((x & 31) * 8, i8); h == (x * 100) & -16; i == x; w == wrap(x * 2, i8)
# tol: 0


@triton.jit
def classify(x, y):
    if x < y:
        return -1
    elif x == y:
        return 0
    else:
        return 1


@triton.jit
def divmod2(a0, a1, b0, b1):
    return a0 // b0, a1 // b1, a0 % b0, a1 % b1


@triton.jit
def clipped_sqrt(x, lo):
    if x > lo:
        r = tl.sqrt(x)
    else:
        r = lo
    return r


@triton.jit
def map_kernel(x_ptr, y_ptr, c_ptr, q_ptr, r_ptr, f_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    y = tl.load(y_ptr + offs, mask=mask, other=1)
    tl.store(c_ptr + offs, tl.map_elementwise(classify, x, y), mask=mask)
    q, r = tl.map_elementwise(divmod2, x, y, pack=2)
    tl.store(q_ptr + offs, q, mask=mask)
    tl.store(r_ptr + offs, r, mask=mask)
    f = tl.map_elementwise(clipped_sqrt, x.to(tl.float32), 2.0)
    tl.store(f_ptr + offs, f, mask=mask)

# kernel: map_kernel
# signature: *i32:16, *i32:16, *i32:16, *i32:16, *i32:16, *fp32:16, i32, 128
# grid: (cdiv(n, 128), 1, 1)
# args: x = randint(-20, 20, n, i32); y = randint(1, 20, n, i32) * randsign(n); c = empty(n, i32); q = empty(n, i32); r = empty(n, i32); f = empty(n, fp32); n = 700
# torch: c = (x > y).int() - (x < y).int(); q = torch.div(x, y, rounding_mode='trunc'); r = torch.fmod(x, y); f = torch.where(x > 2, torch.sqrt(x.float().clamp(min=0)), 2.0)
# check: c == (x > y).astype(np.int32) - (x < y).astype(np.int32); q == np.trunc(x / y); r == np.fmod(x, y); f == np.where(x > 2, np.sqrt(np.maximum(x, 0)), 2.0)
# tol: f: 1e-6
