"""Kernels compiled from the running program's bindings, as Triton does:
kernels defined inside functions and closing over their locals, names bound
under try/except and if at module level, a library package that imports
`triton` and binds its helpers conditionally, a helper module in the style
of torch's (libdevice bound in try/except, @jit helpers used as module
attributes), a global rebound after compiling (an error, as in Triton),
and errors that point into the user's file. Under TRIC_INTERPRET=1."""
import array
import os
import sys

import tric_testlib as T
from tric_testlib import check, check_eq, raises

import tric.as_triton

os.environ["TRIC_INTERPRET"] = "1"
tric.as_triton.install()   # `import triton` in the files below is tric

LIB = os.path.join(T.TMP, "livelib")
os.makedirs(os.path.join(LIB, "fastops"))
FILES = {
    # a library as LLM-training kernel packages are written: triton at module
    # level, helpers bound by whichever import works, kernels made by factories
    "fastops/__init__.py": "from .ops import scaled_rsqrt, make_axpy\n",
    "fastops/utils.py": '''import triton
import triton.language as tl

try:
    from triton.language.extra.libdevice import rsqrt
except ModuleNotFoundError:
    from triton.language.extra.cuda.libdevice import rsqrt

if hasattr(tl, "nothing_like_this"):
    SCALE = 100
else:
    SCALE = 3


@triton.jit
def maximum(a, b):
    return tl.where(a > b, a, b)
''',
    "fastops/ops.py": '''import triton
import triton.language as tl

from . import utils as th
from .utils import rsqrt, SCALE

try:
    from triton.language.extra import libdevice
except ImportError:
    libdevice = None


@triton.jit
def _scaled_rsqrt_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = th.maximum(rsqrt(x) * SCALE, libdevice.sqrt(x))
    tl.store(out_ptr + offs, y, mask=m)


def scaled_rsqrt(x, out):
    _scaled_rsqrt_kernel[(1,)](x, out, len(x), BLOCK=16)


def make_axpy(alpha, BLOCK):
    @triton.jit
    def axpy(x_ptr, y_ptr, n):
        offs = tl.arange(0, BLOCK)
        m = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * alpha + tl.load(y_ptr + offs, mask=m), mask=m)

    return axpy
''',
}
for rel, text in FILES.items():
    with open(os.path.join(LIB, rel), "w") as f:
        f.write(text)
sys.path.append(LIB)
import fastops  # noqa: E402


def test_library():
    import math
    x = array.array("f", [0.25, 1.0, 4.0, 16.0, 100.0])
    out = array.array("f", [0.0] * 5)
    fastops.scaled_rsqrt(x, out)
    want = [max(3 / math.sqrt(v), math.sqrt(v)) for v in x]
    check(all(abs(a - b) < 1e-5 * b for a, b in zip(out, want)), "rsqrt and helpers bound in try/if: %s" % list(out))

    axpy = fastops.make_axpy(tl_constexpr(2.5), 8)   # a kernel made inside a function, closing over both
    y = array.array("f", [1.0] * 6)
    axpy[(1,)](array.array("f", range(6)), y, 6)
    check_eq(list(y), [1.0 + 2.5 * i for i in range(6)], "closure kernel")
    axpy3 = fastops.make_axpy(3, 8)                   # another closure: its own values
    y = array.array("f", [0.0] * 6)
    axpy3[(1,)](array.array("f", range(6)), y, 6)
    check_eq(list(y), [3.0 * i for i in range(6)], "second closure kernel")


def tl_constexpr(v):
    import triton.language as tl
    return tl.constexpr(v)


def test_nested_in_test():
    # as Triton's own tests write them: the kernel and its helper inside the test
    import triton
    import triton.language as tl
    N = 8

    @triton.jit(noinline=True)   # Triton calls it; tric inlines it, computing the same
    def add_one(x):
        return x + 1

    @triton.jit
    def kernel(x_ptr, OFFSET: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(x_ptr + offs, add_one(tl.load(x_ptr + offs)) + OFFSET)

    x = array.array("i", range(8))
    kernel[(1,)](x, 10)
    check_eq(list(x), [i + 11 for i in range(8)], "nested kernel, closure helper and constant")


GLOBAL_SCALE = 2


def test_changed_global():
    import triton
    import triton.language as tl
    global GLOBAL_SCALE

    @triton.jit
    def kernel(x_ptr):
        offs = tl.arange(0, 4)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) * GLOBAL_SCALE)

    x = array.array("i", [1, 2, 3, 4])
    kernel[(1,)](x)
    check_eq(list(x), [2, 4, 6, 8], "compiled with GLOBAL_SCALE = 2")
    GLOBAL_SCALE = 5
    try:
        e = raises(RuntimeError, lambda: kernel[(1,)](x))
        check(e is not None and str(e) == "Global variable GLOBAL_SCALE has changed since we compiled this kernel, "
              "from 2 to 5", "Triton's error: %s" % e)
        check_eq(list(x), [2, 4, 6, 8], "nothing ran")
    finally:
        GLOBAL_SCALE = 2
    kernel[(1,)](x)
    check_eq(list(x), [4, 8, 12, 16], "the value it was compiled with again: runs")


def host_helper(x):
    return x


def test_errors_point_into_the_file():
    import triton
    import triton.language as tl

    @triton.jit
    def bad(x_ptr):
        offs = tl.arange(0, 4)
        tl.store(x_ptr + offs, host_helper(tl.load(x_ptr + offs)))

    e = raises(triton.CompilationError, lambda: bad[(1,)](array.array("i", [0] * 4)))
    line = bad.fn.__code__.co_firstlineno + 3
    want = ("%s:%d:32: error: Cannot access global variable host_helper from within @jit'ed function: it is the "
            "Python function 'host_helper' (not a @jit function)" % (__file__, line))
    check(e is not None and want in str(e), "the file, line and column of the use: %s" % e)
    check(e is not None and "        tl.store(x_ptr + offs, host_helper(" in str(e), "the line as the file has it")

    @triton.jit
    def undefined(x_ptr):
        tl.store(x_ptr, not_bound_anywhere)  # noqa: F821

    e = raises(triton.CompilationError, lambda: undefined[(1,)](array.array("i", [0])))
    check(e is not None and "name 'not_bound_anywhere' is not defined" in str(e), "undefined: %s" % e)


def test_wrappers_and_rewritten_source():
    """A helper wrapped by another KernelInterface (as test harnesses wrap
    kernels) is compiled through the JITFunction it names; a kernel whose
    source a program rewrites (Triton's _unsafe_update_src, which its tests'
    patch_kernel uses) compiles the new text."""
    import triton
    import triton.language as tl

    class Wrapped(triton.KernelInterface):
        def __init__(self, jf):
            self.fn, self.jit_function = jf.fn, jf

    @triton.jit
    def plus_two(x):
        return x + 2

    helper = Wrapped(plus_two)

    @triton.jit
    def kernel(x_ptr):
        offs = tl.arange(0, 4)
        tl.store(x_ptr + offs, helper(tl.load(x_ptr + offs)) * 1)

    x = array.array("i", [1, 2, 3, 4])
    kernel[(1,)](x)
    check_eq(list(x), [3, 4, 5, 6], "the wrapped helper")

    # a helper made by Triton's own @jit (a program importing both): compiled from its function
    TritonJIT = type("JITFunction", (), {"__module__": "triton.runtime.jit"})
    helper = TritonJIT()
    helper.fn = plus_two.fn
    kernel2 = triton.jit(kernel.fn)
    x = array.array("i", [1, 2, 3, 4])
    kernel2[(1,)](x)
    check_eq(list(x), [3, 4, 5, 6], "Triton's JITFunction as a helper")
    kernel._unsafe_update_src(kernel.src[kernel.src.index("def"):].replace("* 1)", "* 10)"))
    kernel[(1,)](x)
    check_eq(list(x), [50, 60, 70, 80], "the rewritten source")


def test_const_pointers_and_names():
    """`x_ptr: tl.const` specializes as a constant pointer ("*k"): a store
    through it is an error. Every name of Triton's tl.__all__ imports."""
    import triton
    import triton.language as tl
    from triton.language import block_type, const, constexpr_type, pi32_t, void  # noqa: F401

    @triton.jit
    def copy(src: tl.const, dst, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(dst + offs, tl.load(src + offs))

    @triton.jit
    def store_to_const(src: tl.const, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(src + offs, tl.load(src + offs) + 1)

    x, y = array.array("f", [2.0] * 4), array.array("f", [0.0] * 4)
    k = copy[(1,)](x, y, BLOCK=4)
    check(k.metadata.signature.startswith("*kfp32") and list(y) == [2.0] * 4, "tl.const: %s" % k.metadata.signature)
    e = raises(triton.CompilationError, lambda: store_to_const[(1,)](x, BLOCK=4))
    check(e is not None and "Cannot store to a constant pointer" in str(e), "a store through tl.const: %s" % e)
    check_eq(str(tl.pi32_t), "pointer<int32>", "tl.pi32_t")


T.run([test_library, test_nested_in_test, test_changed_global, test_errors_point_into_the_file,
       test_wrappers_and_rewritten_source, test_const_pointers_and_names])
