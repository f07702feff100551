"""print / tl.device_print / tl.static_print / assert under TRIC_INTERPRET=1:
the kernel's lines appear on sys.stdout (so capture sees them), static_print
at compile time only, a failing assertion raises tric.InterpreterError with
the location, and debug=True / TRITON_DEBUG=1 put __assertfail in the PTX.
Needs no GPU or driver."""
import array
import contextlib
import io
import os

import tric_testlib as T
from tric_testlib import check, check_eq, raises

import tric as triton

KERNELS = '''import tric as triton
import tric.language as tl


@triton.jit
def show_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.static_print("BLOCK =", BLOCK)
    print("x", x)
    tl.device_print("n", n, hex=True)
    assert tl.program_id(0) < 2, "at most two programs"


@triton.jit(debug=True)
def checked_kernel(x_ptr):
    tl.device_assert(tl.load(x_ptr) > 0, "x > 0")
'''

os.environ["TRIC_INTERPRET"] = "1"
M = T.write_module(KERNELS)
PATH = M.__file__


def run_captured(fn):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn()
    return out.getvalue()


def test_prints():
    x = array.array("f", [1.5, -2.0, 0.25])
    text = run_captured(lambda: M.show_kernel[(2,)](x, 3, BLOCK=2))
    note = ("%s:9:5: note: BLOCK = 2\n"
            "    tl.static_print(\"BLOCK =\", BLOCK)\n"
            "    ^\n" % PATH)
    want = note + ("pid (0, 0, 0) idx (0) x: 1.500000\n"
                   "pid (0, 0, 0) idx (1) x: -2.000000\n"
                   "pid (0, 0, 0) idx () n: 0x00000003\n"
                   "pid (1, 0, 0) idx (0) x: 0.250000\n"
                   "pid (1, 0, 0) idx (1) x: 0.000000\n"
                   "pid (1, 0, 0) idx () n: 0x00000003\n")
    check_eq(text, want, "static_print at compile time, then the kernel's lines on sys.stdout")
    text = run_captured(lambda: M.show_kernel[(1,)](x, 3, BLOCK=2))
    check_eq(text.startswith("pid (0, 0, 0) idx (0) x: 1.5"), True, "compiled once: no second static_print")


def test_assert():
    x = array.array("f", [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    e = raises(triton.InterpreterError, lambda: run_captured(lambda: M.show_kernel[(3,)](x, 6, BLOCK=2)))
    want = ("%s:12:5: error: device assertion failed: at most two programs in program (2, 0, 0)\n"
            "    assert tl.program_id(0) < 2, \"at most two programs\"\n"
            "    ^" % PATH)
    check_eq(str(e), want, "a failed assert names the program, with the line and caret")


def test_debug():
    x = array.array("f", [-1.0])
    c = M.checked_kernel.warmup("*fp32", grid=(1,))
    check("__assertfail" in c.asm["ptx"], "debug=True compiles the assertion into the PTX")
    c = M.show_kernel.warmup("*fp32", 3, BLOCK=2, grid=(1,))
    check("__assertfail" not in c.asm["ptx"], "without debug the PTX has no assertion")
    os.environ["TRITON_DEBUG"] = "1"
    try:
        c = M.show_kernel.warmup("*fp32", 3, BLOCK=2, grid=(1,))
    finally:
        del os.environ["TRITON_DEBUG"]
    check("__assertfail" in c.asm["ptx"], "TRITON_DEBUG=1 compiles the assertion in")
    e = raises(triton.InterpreterError, lambda: M.checked_kernel[(1,)](x))
    check(e is not None and "device assertion failed: x > 0 in program (0, 0, 0)" in str(e),
          "the interpreter checks the assertion")


T.run([test_prints, test_assert, test_debug])
