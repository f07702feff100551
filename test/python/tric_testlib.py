"""Shared set-up for test/python/test_*.py (not a test itself).

Points the package at the source tree's python/ and build/libtric.so
(TRIC_LIBRARY wins when set), gives each test process a fresh disk cache
directory, writes kernel files to import, and can re-run a test under the
fake CUDA driver (test/python/fake_cuda.c), which records launches instead
of running them.
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "test", "python")
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("TRIC_LIBRARY", os.path.join(ROOT, "build", "libtric.so"))

TMP = tempfile.mkdtemp(prefix="tric-pytest-")
os.environ["TRIC_CACHE_DIR"] = os.path.join(TMP, "cache")

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def check_eq(actual, expected, what):
    if actual != expected:
        failures.append(what)
        print("FAIL: %s\n  expected: %r\n  actual:   %r" % (what, expected, actual))


def raises(exc_type, fn, *args, **kwargs):
    """The exception fn raised (of exc_type), or None after recording a failure."""
    try:
        fn(*args, **kwargs)
    except exc_type as e:
        return e
    except Exception as e:   # the wrong kind
        failures.append("%s raised %s: %s" % (getattr(fn, "__name__", fn), type(e).__name__, e))
        print("FAIL: expected %s, got %s: %s" % (exc_type.__name__, type(e).__name__, e))
        return None
    failures.append("%s did not raise %s" % (getattr(fn, "__name__", fn), exc_type.__name__))
    print("FAIL: %s did not raise %s" % (getattr(fn, "__name__", fn), exc_type.__name__))
    return None


_counter = [0]


def write_module(source, name=None):
    """Writes source to a fresh .py file and imports it; returns the module."""
    _counter[0] += 1
    name = name or "tric_test_kernels_%d" % _counter[0]
    d = os.path.join(TMP, "mod%d" % _counter[0])
    os.makedirs(d)
    path = os.path.join(d, name + ".py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def cache_entries():
    d = os.environ["TRIC_CACHE_DIR"]
    return sorted(f for f in os.listdir(d) if f.endswith(".tric")) if os.path.isdir(d) else []


class FakeTensor:
    """A tensor as tric sees one: data_ptr(), dtype (a torch-like name) and
    get_device() (its CUDA device)."""

    def __init__(self, ptr, dtype="torch.float32", device=0, pinned=False):
        self.ptr = ptr
        self.dtype = dtype
        self.device_index = device
        self.pinned = pinned
        self.zeroed = 0
        self.cloned = 0
        self.restored = 0

    def data_ptr(self):
        return self.ptr

    def get_device(self):
        return self.device_index

    def is_pinned(self):
        return self.pinned

    def zero_(self):
        self.zeroed += 1
        return self

    def clone(self):
        self.cloned += 1
        return FakeTensor(self.ptr, self.dtype)

    def copy_(self, other):
        self.restored += 1
        return self


class dtype:
    """Looks like a torch.dtype to tric (type named dtype from module torch)."""
    __module__ = "torch"

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


class FakeCudaArray:
    """An object with __cuda_array_interface__ (CuPy, Numba)."""

    def __init__(self, ptr, typestr="<f4"):
        self.__cuda_array_interface__ = {"data": (ptr, False), "typestr": typestr, "shape": (16,), "version": 3}


def under_fake_driver():
    """True in the re-run under the fake driver. Otherwise builds the fake
    libcuda.so.1 and re-runs this script with it, exiting with its status."""
    if os.environ.get("TRIC_FAKE_CUDA"):
        return True
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        print("no C compiler: cannot build the fake driver")
        sys.exit(1)
    libdir = os.path.join(TMP, "fakecuda")
    os.makedirs(libdir, exist_ok=True)
    so = os.path.join(libdir, "libcuda.so.1")
    subprocess.check_call([cc, "-shared", "-fPIC", "-O1", "-o", so, os.path.join(HERE, "fake_cuda.c")])
    env = dict(os.environ, TRIC_FAKE_CUDA=so,
               LD_LIBRARY_PATH=libdir + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    code = subprocess.call([sys.executable, os.path.abspath(sys.argv[0])], env=env)
    shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(code)


def run(tests):
    """Runs each test function, reports, removes the temporary directory and
    exits 0 only if every check passed."""
    for t in tests:
        try:
            t()
        except Exception:
            failures.append(t.__name__)
            print("FAIL: %s raised:" % t.__name__)
            traceback.print_exc()
    shutil.rmtree(TMP, ignore_errors=True)
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("all passed")
    sys.exit(0)
