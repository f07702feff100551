"""TRIC_INTERPRET=1: kernel[grid](...) on tric's CPU interpreter, over host
buffers (array.array here, so no numpy is needed; numpy arrays too where
numpy is installed): results in place, masked loads with `other`, 2-D grids,
scalars of each kind, and interpreter errors as tric.InterpreterError with
the source line and caret. Needs no GPU or driver."""
import array
import os
import types

import tric_testlib as T
from tric_testlib import check, check_eq, raises

import tric as triton
from tric.tools.tensor_descriptor import TensorDescriptor

KERNELS = '''import tric as triton
import tric.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, a, b, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-1.5)
    tl.store(out_ptr + offs, x * a + b)


@triton.jit
def add2d_kernel(a_ptr, out_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * stride + cols[None, :]
    a = tl.load(a_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a + rows[:, None] * 1000 + cols[None, :], mask=mask)


@triton.jit
def div_kernel(x_ptr, d, k):
    tl.store(x_ptr, tl.load(x_ptr) // d + k)


@triton.jit
def desc_kernel(in_desc, out_desc, pad_ptr, BM: tl.constexpr, BN: tl.constexpr):
    m = tl.program_id(0) * BM
    n = tl.program_id(1) * BN
    out_desc.store([m, n], in_desc.load([m, n]) + 1)
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(pad_ptr + offs, in_desc.load([4, 4]))


@triton.jit
def desc_matmul_kernel(a_desc, b_desc, c_desc, K, BK: tl.constexpr):
    BM: tl.constexpr = a_desc.block_shape[0]
    BN: tl.constexpr = b_desc.block_shape[0]
    m = tl.program_id(0) * BM
    n = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([m, k * BK]), b_desc.load([n, k * BK]).T, acc)
    c_desc.store([m, n], acc)


@triton.jit
def tuple_kernel(out, shape, pair, BLOCK):
    offs = tl.arange(0, BLOCK[0])
    x = offs * shape[0] + shape[1][0] + pair[0]
    tl.store(pair[1] + offs, x, mask=offs < shape[1][1])
    tl.store(out + offs, tl.full((BLOCK[0],), len(shape[1]), tl.int32))
'''

os.environ["TRIC_INTERPRET"] = "1"
M = T.write_module(KERNELS)
PATH = M.__file__


def test_vector_add():
    n = 100
    x = array.array("f", [i * 0.25 for i in range(n)])
    y = array.array("f", [1000.0 - i for i in range(n)])
    out = array.array("f", [0.0] * n)
    c = M.add_kernel[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](x, y, out, n, BLOCK=32)
    check_eq(list(out), [i * 0.25 + 1000.0 - i for i in range(n)], "vector add on array.array")
    check_eq(c.metadata.signature.replace(":16", ""), "*fp32, *fp32, *fp32, i32, 32", "host buffers are *fp32")
    out2 = array.array("f", [0.0] * n)
    c[(4,)](x, y, out2, n, 32)   # the compiled kernel's own launcher interprets too
    check_eq(list(out2), list(out), "CompiledKernel[grid] under TRIC_INTERPRET=1")


def test_autotune():
    """An autotuner with several configs: they are compiled (warmup) with
    host arrays before timing; the interpreter's do_bench stand-in times
    each by running it."""
    tuned = triton.autotune(configs=[triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 64})], key=["n"],
                            do_bench=lambda call, quantiles: (call(), [1.0, 1.0, 1.0])[1])(M.add_kernel)
    n = 50
    x, y = array.array("f", [float(i) for i in range(n)]), array.array("f", [2.0] * n)
    out = array.array("f", [0.0] * n)
    tuned[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, out, n)
    check_eq(list(out), [i + 2.0 for i in range(n)], "two configs, host arrays")


def test_masked_load_other():
    n = 10
    x = array.array("f", [float(i) for i in range(n)])
    out = array.array("f", [0.0] * 16)
    M.scale_kernel[(1,)](x, out, n, 2.0, -1, BLOCK=16)
    check_eq(list(out), [2.0 * i - 1 for i in range(n)] + [2.0 * -1.5 - 1] * 6, "masked lanes load `other`")


def test_out_of_bounds_store():
    n = 10
    x = array.array("f", [0.0] * n)
    out = array.array("f", [0.0] * n)
    e = raises(triton.InterpreterError, lambda: M.scale_kernel[(1,)](x, out, n, 1.0, 0, BLOCK=16))
    want = ("%s:16:5: error: out-of-bounds store: element (10) writes 4 bytes at offset +40 of buffer 'out_ptr' "
            "(40 bytes) in program (0, 0, 0)\n"
            "    tl.store(out_ptr + offs, x * a + b)\n"
            "    ^" % PATH)
    check_eq(str(e), want, "out-of-bounds store: the interpreter's message, line and caret")
    check_eq(list(out), [0.0] * n, "nothing is stored by an op that goes out of bounds")


def test_2d():
    rows, cols = 5, 7
    a = array.array("i", range(rows * cols))
    out = array.array("i", [-1] * (rows * cols))
    M.add2d_kernel[(2, 2)](a, out, rows, cols, cols, BM=4, BN=4)
    want = [r * cols + c + r * 1000 + c for r in range(rows) for c in range(cols)]
    check_eq(list(out), want, "2-D kernel over a 2x2 grid")


def test_scalars_and_division_by_zero():
    x = array.array("q", [-9])
    M.div_kernel[(1,)](x, 2, -3)
    check_eq(x[0], -4 - 3, "i64 buffer, negative i32 scalar; // truncates toward zero")
    e = raises(triton.InterpreterError, lambda: M.div_kernel[(1,)](x, 0, 5))
    want = ("%s:31:36: error: integer division by zero in program (0, 0, 0)\n"
            "    tl.store(x_ptr, tl.load(x_ptr) // d + k)\n"
            "                                   ^" % PATH)
    check_eq(str(e), want, "division by zero: the located message")


def test_bad_arguments():
    out = array.array("f", [0.0] * 4)
    raises(TypeError, lambda: M.scale_kernel[(1,)](b"read-only", out, 4, 1.0, 0, BLOCK=4))
    raises(TypeError, lambda: M.scale_kernel[(1,)](array.array("u", "abcd"), out, 4, 1.0, 0, BLOCK=4))
    os.environ["TRIC_INTERPRET"] = "0"
    try:   # read at each launch: off again, a host array is not a tensor
        raises(TypeError, lambda: M.scale_kernel[(1,)](out, out, 4, 1.0, 0, BLOCK=4))
    finally:
        os.environ["TRIC_INTERPRET"] = "1"


def test_tensor_descriptors():
    # in: 5x7 in rows of 8 floats (32 bytes: strides are 16-byte multiples)
    a = array.array("f", [float(r * 10 + c) for r in range(5) for c in range(8)])
    out = array.array("f", [-1.0] * 40)
    pad = array.array("f", [0.0] * 16)
    desc = types.SimpleNamespace   # any object with TensorDescriptor's fields
    d_in = desc(base=a, shape=[5, 7], strides=[8, 1], block_shape=[4, 4], padding="nan")
    d_out = desc(base=out, shape=[5, 6], strides=[8, 1], block_shape=[4, 4], padding="zero")
    c = M.desc_kernel[(2, 2)](d_in, d_out, pad, BM=4, BN=4)
    check_eq(c.metadata.signature.replace(":16", ""),
             "tensordesc<fp32[4, 4],nan>, tensordesc<fp32[4, 4]>, *fp32, 4, 4", "descriptor signatures")
    check_eq([p.name for p in c.params], ["in_desc"] * 4 + ["out_desc"] * 4 + ["pad_ptr"],
             "a descriptor is its base, shape and strides but the last")
    want = [a[r * 8 + col] + 1 if col < 6 else -1.0 for r in range(5) for col in range(8)]
    check_eq(list(out), want, "stores inside the shape only")
    got = [x if x == x else "nan" for x in pad]
    check_eq(got, [(r + 4) * 10 + col + 4 if r + 4 < 5 and col + 4 < 7 else "nan" for r in range(4) for col in range(4)],
             "loads outside the shape read the padding (NaN)")


def test_tensor_descriptor_tma():
    """Compiled for sm_90a, the K loop moves the blocks by TMA (a tensor map
    per descriptor, encoded for the interpreter at each launch)."""
    m, n, k = 20, 24, 40   # k padded to rows of 48 floats (192 bytes, a 16-byte multiple)
    a = array.array("f", [((r * 7 + c) % 11) * 0.25 for r in range(m) for c in range(48)])
    b = array.array("f", [((r * 5 + c) % 13) * 0.5 - 2 for r in range(n) for c in range(48)])
    c = array.array("f", [-1.0] * (m * n))
    desc = types.SimpleNamespace
    os.environ["TRIC_ARCH"] = "sm_90a"
    try:
        ck = M.desc_matmul_kernel[(2, 2)](desc(base=a, shape=[m, k], strides=[48, 1], block_shape=[16, 32]),
                                          desc(base=b, shape=[n, k], strides=[48, 1], block_shape=[16, 32]),
                                          desc(base=c, shape=[m, n], strides=[n, 1], block_shape=[16, 16]), k, BK=32)
    finally:
        del os.environ["TRIC_ARCH"]
    check("cp.async.bulk.tensor" in ck.asm["ptx"], "the K loop's loads go by TMA")
    check_eq([p.name for p in ck.params if p.kind == 3], ["a_desc", "b_desc", "c_desc"], "a tensor map each")
    want = [sum(a[i * 48 + t] * b[j * 48 + t] for t in range(k)) for i in range(m) for j in range(n)]
    check(all(abs(x - y) <= 1e-4 * max(1.0, abs(y)) for x, y in zip(c, want)), "the product, edges clipped")


def test_tensor_descriptor_checks():
    class Tensor:   # a stand-in for a torch tensor
        def __init__(self, address, shape, strides):
            self.address, self.dtype, self.shape, self._strides = address, "fp16", shape, strides

        def data_ptr(self):
            return self.address

        def stride(self):
            return self._strides
    d = TensorDescriptor.from_tensor(Tensor(4096, [64, 32], [32, 1]), [16, 16])
    check_eq((d.shape, d.strides, d.block_shape, d.padding), ([64, 32], [32, 1], [16, 16], "zero"), "from_tensor")
    for bad, why in ((lambda: TensorDescriptor.from_tensor(Tensor(4098, [64, 32], [32, 1]), [16, 16]),
                      "base must be 16-byte aligned"),
                     (lambda: TensorDescriptor.from_tensor(Tensor(4096, [64, 30], [30, 1]), [16, 16]),
                      "strides must be 16-byte aligned"),
                     (lambda: TensorDescriptor.from_tensor(Tensor(4096, [64, 32], [1, 64]), [16, 16]),
                      "strides must be 16-byte aligned"),
                     (lambda: TensorDescriptor.from_tensor(Tensor(4096, [64, 32], [32, 1]), [16, 16], "inf"),
                      "Illegal value for padding")):
        check_eq(str(raises(AssertionError, bad)), why, why)
    raises(ValueError, lambda: TensorDescriptor.from_tensor(Tensor(4096, [64, 32], [32, 1]), [16, 12]))


def test_tuples():
    """Tuple arguments, nested, with ints, a pointer and tl.constexpr items:
    their items become parameters (or constants), found again at launch."""
    out, dst = array.array("i", [0] * 16), array.array("i", [-1] * 16)
    k = M.tuple_kernel[(1,)](out, (3, (32, 5)), (7, dst), (triton.language.constexpr(16),))
    check_eq(k.metadata.signature, "*i32:16, (i32, (i32:16, i32)), (i32, *i32:16), (16,)", "the signature")
    check_eq([(p.name, p.part, p.index) for p in k.params if p.part == 6],
             [("shape", 6, 0), ("shape", 6, 1), ("shape", 6, 2), ("pair", 6, 0), ("pair", 6, 1)], "one per item")
    check_eq(list(dst), [3 * i + 32 + 7 for i in range(5)] + [-1] * 11, "the items' values")
    check_eq(list(out), [2] * 16, "len() of a tuple item")
    k2 = M.tuple_kernel[(1,)](out, (3, (1, 5)), (7, dst), (triton.language.constexpr(16),))
    check_eq(k2.metadata.signature, "*i32:16, (i32, (i32:1, i32)), (i32, *i32:16), (16,)", "an item equal to 1")
    # Triton's own tl.constexpr (code written for Triton, tric's jit) is a value too
    triton_constexpr = type("constexpr", (), {"__init__": lambda self, v: setattr(self, "value", v)})
    triton_constexpr.__module__ = "triton.language.core"
    k3 = M.tuple_kernel[(1,)](out, (3, (1, 5)), (7, dst), (triton_constexpr(16),))
    check(k3 is k2, "Triton's constexpr in a tuple specializes as tric's")


class ReadOnlyPage:
    """What numpy gives for np.memmap(..., mode="r"): an array whose memory
    is mapped read-only (a write faults the process), its interface saying
    so; made here with mmap and mprotect, so no numpy is needed."""

    def __init__(self, values):
        import ctypes
        import mmap
        self.map = mmap.mmap(-1, mmap.PAGESIZE)
        self.buf = (ctypes.c_float * len(values)).from_buffer(self.map)
        self.buf[:] = values
        self.address = ctypes.addressof(self.buf)
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        check_eq(libc.mprotect(self.address, mmap.PAGESIZE, mmap.PROT_READ), 0, "mprotect")
        self.nbytes = 4 * len(values)
        self.flags = {"C_CONTIGUOUS": True, "WRITEABLE": False}
        self.__array_interface__ = {"data": (self.address, True), "typestr": "<f4", "shape": (len(values),),
                                    "strides": None, "version": 3}


def test_read_only_output():
    """A read-only array as the output: an InterpreterError naming it, not
    a silent write (or a fault that kills the process, for a read-only
    mapping); as an input it is fine."""
    page = ReadOnlyPage([float(i) for i in range(8)])
    out = array.array("f", [0.0] * 8)
    M.scale_kernel[(1,)](page, out, 8, 2.0, 1, BLOCK=8)
    check_eq(list(out), [2.0 * i + 1 for i in range(8)], "a read-only input is read")
    e = raises(triton.InterpreterError, lambda: M.scale_kernel[(1,)](out, page, 8, 2.0, 1, BLOCK=8))
    want = ("%s:16:5: error: store into read-only buffer 'out_ptr': element (0) writes 4 bytes at offset 0 (pass a "
            "writable array) in program (0, 0, 0)" % PATH)
    check(e is not None and str(e).startswith(want), "store into a read-only mapping: %s" % e)
    check_eq(list(page.buf), [float(i) for i in range(8)], "nothing written")


def test_numpy():
    try:
        import numpy as np
    except ImportError:
        print("note: numpy not installed: skipping the numpy case")
        return
    x = np.arange(50, dtype=np.float32)
    y = np.ones(50, dtype=np.float32)
    out = np.zeros(50, dtype=np.float32)
    M.add_kernel[(2,)](x, y, out, 50, BLOCK=32)
    check(bool((out == x + 1).all()), "vector add on numpy arrays")
    out.flags.writeable = False
    e = raises(triton.InterpreterError, lambda: M.add_kernel[(2,)](x, y, out, 50, BLOCK=32))
    check(e is not None and "store into read-only buffer 'out_ptr'" in str(e), "a read-only numpy output: %s" % e)


T.run([test_vector_add, test_autotune, test_masked_load_other, test_out_of_bounds_store, test_2d, test_scalars_and_division_by_zero,
       test_bad_arguments, test_tensor_descriptors, test_tensor_descriptor_tma, test_tensor_descriptor_checks, test_tuples,
       test_read_only_output, test_numpy])
