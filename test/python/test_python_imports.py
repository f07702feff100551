"""A kernel that imports @jit helpers from a package of the user's, found
through sys.path as Python finds it (`from mypkg.helpers import f`, `import
mypkg.consts as c`), not from the kernel file's directory: the compiler is
handed the program's own bindings; run under TRIC_INTERPRET=1, so no GPU or
driver is needed."""
import array
import os
import sys

import tric_testlib as T
from tric_testlib import check, check_eq, raises

import tric as triton

LIB = os.path.join(T.TMP, "lib")
os.makedirs(os.path.join(LIB, "mypkg"))
FILES = {
    "mypkg/__init__.py": "",
    "mypkg/consts.py": "import tric.language as tl\n\nOFFSET = tl.constexpr(100)\n",
    "mypkg/helpers.py": '''import tric as triton
import tric.language as tl
from . import consts


@triton.jit
def twice_plus(x):
    return x * 2 + consts.OFFSET
''',
}
for rel, text in FILES.items():
    with open(os.path.join(LIB, rel), "w") as f:
        f.write(text)

KERNELS = '''import tric as triton
import tric.language as tl
from mypkg.helpers import twice_plus
import mypkg.consts as c


@triton.jit
def helper_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, twice_plus(tl.load(x_ptr + offs, mask=m)) - c.OFFSET, mask=m)
'''

os.environ["TRIC_INTERPRET"] = "1"
sys.path.append(LIB)          # Python imports the kernel's module (and mypkg) through it
M = T.write_module(KERNELS)   # in a directory of its own, not LIB


def test_import_through_sys_path():
    x = array.array("i", range(10))
    out = array.array("i", [0] * 10)
    M.helper_kernel[(1,)](x, out, 10, BLOCK=16)
    check_eq(list(out), [2 * i for i in range(10)], "helpers from mypkg on sys.path")


def test_not_on_sys_path():
    # a fresh kernel object compiles again, now without LIB on sys.path: the
    # compiler is given what the program has bound (mypkg, imported), not
    # files to look for
    sys.path.remove(LIB)
    try:
        k = triton.jit(M.helper_kernel.fn)
        x = array.array("i", range(4))
        out = array.array("i", [0] * 4)
        k[(1,)](x, out, 4, BLOCK=4)
        check_eq(list(out), [0, 2, 4, 6], "mypkg's helpers as the program bound them")
    finally:
        sys.path.append(LIB)


T.run([test_import_through_sys_path, test_not_on_sys_path])
