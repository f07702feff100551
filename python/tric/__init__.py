"""tric: Triton kernels compiled by tric (C, no LLVM) and launched through
the CUDA driver. A drop-in for `import triton`:

    import tric as triton
    import tric.language as tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        ...

    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)

Pure Python over libtric.so (ctypes); torch is optional: any object with
data_ptr() and dtype, or with __cuda_array_interface__, is a pointer.
"""
from . import _lib
from . import language
from ._lib import CompilationError, DriverError, InterpreterError, OutOfResources
from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from .jit import CompiledKernel, JITFunction, KernelInterface, MockTensor, jit, set_allocator
from . import backends
from . import compiler
from .compiler import compile
from . import knobs
from . import runtime
from . import testing
from . import tools

# The Triton release whose language and Python surface tric follows, with
# tric's own version as the local part: libraries that compare
# triton.__version__ (packaging.version) see the Triton they need.
TRITON_VERSION = "3.6.0"
__version__ = TRITON_VERSION + "+tric." + _lib.version()


def cdiv(x, y):
    """Ceiling division: the number of blocks of y that cover x."""
    return (x + y - 1) // y


def next_power_of_2(n):
    """The smallest power of two >= n, by Triton's bit smearing over 64
    bits (so 0 gives 0, as in Triton)."""
    n = int(n) - 1
    for shift in (1, 2, 4, 8, 16, 32):
        n |= n >> shift
    return n + 1


__all__ = ["jit", "autotune", "heuristics", "Config", "cdiv", "next_power_of_2", "set_allocator", "CompilationError",
           "DriverError", "InterpreterError", "OutOfResources", "JITFunction", "CompiledKernel", "Autotuner",
           "Heuristics", "KernelInterface", "MockTensor", "backends", "compile", "compiler", "knobs", "language", "runtime", "testing", "tools"]
