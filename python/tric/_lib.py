"""libtric.so through ctypes: finding the library, the prototypes of the C
API (runtime/tric.h), and turning its status codes into Python exceptions.

The library is looked for, in order, at $TRIC_LIBRARY, next to this file
(where `pip install .` puts it) and at ../build/libtric.so of the
source tree (python/tric -> build/), so the package runs from a checkout
after `make`.
"""
import ctypes
import os
import re

TRIC_OK = 0
TRIC_ERR_COMPILE = 1
TRIC_ERR_ARG = 2
TRIC_ERR_NO_DRIVER = 3
TRIC_ERR_CUDA = 4
TRIC_ERR_INTERPRET = 5
TRIC_ERR_RESOURCES = 6
TRIC_ERR_INTERNAL = 7

PARAM_POINTER = 0
PARAM_INT = 1
PARAM_FLOAT = 2
PARAM_TENSORMAP = 3     # 128 bytes by value (tric_encode_tensor_map)
TMAP_BYTES = 128

PART_WHOLE = 0          # tric_param_part
PART_DESC_BASE = 1
PART_DESC_SHAPE = 2
PART_DESC_STRIDE = 3
PART_DESC_TMAP = 4
PART_SCRATCH = 5        # the global scratch: tric_kernel_scratch_bytes per program
PART_TUPLE_ITEM = 6     # leaf part_index of a tuple argument, flattened depth first


class CompilationError(Exception):
    """A mistake in a kernel (or in how it was specialized): the text is
    tric's message, `file:line:col: error: ...`, the source line and a caret."""


class InterpreterError(RuntimeError):
    """A kernel run under TRIC_INTERPRET=1 went wrong on the CPU (an
    out-of-bounds access, a division by zero): the text is the interpreter's
    message, `file:line:col: error: ...`, the source line and a caret."""


class DriverError(RuntimeError):
    """The CUDA driver is missing (no GPU here) or a driver call failed."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


class OutOfResources(DriverError):
    """The kernel needs more of the device than it has (Triton's
    OutOfResources): required and limit in bytes, name the resource."""

    def __init__(self, message, status=TRIC_ERR_RESOURCES):
        super().__init__(message, status)
        m = re.search(r"needs (\d+) bytes of shared memory; device \d+ allows (\d+)", message)
        self.required, self.limit = (int(m.group(1)), int(m.group(2))) if m else (None, None)
        self.name = "shared memory"


class _Param(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int), ("type", ctypes.c_char_p),
                ("bytes", ctypes.c_int), ("part", ctypes.c_int), ("part_index", ctypes.c_int)]


class _Options(ctypes.Structure):
    _fields_ = [("arch", ctypes.c_char_p), ("num_warps", ctypes.c_int), ("num_stages", ctypes.c_int),
                ("debug", ctypes.c_int), ("search_path", ctypes.POINTER(ctypes.c_char_p)),
                ("maxnreg", ctypes.c_int), ("disable_fp_fusion", ctypes.c_int), ("entry_name", ctypes.c_char_p),
                ("launch_cooperative_grid", ctypes.c_int)]


class _HostBuffer(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("bytes", ctypes.c_size_t), ("name", ctypes.c_char_p),
                ("read_only", ctypes.c_int)]


def _candidates():
    env = os.environ.get("TRIC_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.join(here, "libtric.so"),
            os.path.normpath(os.path.join(here, "..", "..", "build", "libtric.so"))]


def _find():
    tried = _candidates()
    for path in tried:
        if os.path.exists(path):
            return path
    raise ImportError("tric: cannot find libtric.so (looked at %s); build it with `make` in the tric "
                      "repository or set TRIC_LIBRARY=/path/to/libtric.so" % ", ".join(tried))


_P = ctypes.c_void_p
_ERR = ctypes.POINTER(ctypes.c_void_p)
# tric_print_fn: what a kernel prints under the interpreter (text, len, user)
PRINT_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)

# name: (restype, argtypes)
_PROTOTYPES = {
    "tric_compile_file": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                         ctypes.POINTER(_Options), ctypes.POINTER(_P), _ERR]),
    "tric_compile_source": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                           ctypes.POINTER(_Options), ctypes.POINTER(_P), _ERR]),
    "tric_kernel_free": (None, [_P]),
    "tric_kernel_ptx": (ctypes.c_char_p, [_P]),
    "tric_kernel_ir": (ctypes.c_char_p, [_P]),
    "tric_kernel_name": (ctypes.c_char_p, [_P]),
    "tric_kernel_arch": (ctypes.c_char_p, [_P]),
    "tric_kernel_num_params": (ctypes.c_int, [_P]),
    "tric_kernel_param": (ctypes.POINTER(_Param), [_P, ctypes.c_int]),
    "tric_kernel_num_warps": (ctypes.c_int, [_P]),
    "tric_kernel_shared_bytes": (ctypes.c_int, [_P]),
    "tric_kernel_scratch_bytes": (ctypes.c_int, [_P]),
    "tric_kernel_estimated_registers": (ctypes.c_int, [_P]),
    "tric_kernel_cache_hit": (ctypes.c_int, [_P]),
    "tric_kernel_attributes": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int), _ERR]),
    "tric_launch_packed": (ctypes.c_int, [_P, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, _P, _P, _ERR]),
    "tric_launch_packed_on": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, _P, _P,
                                             _ERR]),
    "tric_encode_tensor_map": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_uint64, ctypes.c_int,
                                              ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int64),
                                              ctypes.c_int, _P, _ERR]),
    "tric_interpret": (ctypes.c_int, [_P, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, _P, ctypes.c_int,
                                      ctypes.POINTER(_HostBuffer), _ERR]),
    "tric_interpret_print": (ctypes.c_int, [_P, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, _P, ctypes.c_int,
                                            ctypes.POINTER(_HostBuffer), PRINT_FN, _P, _ERR]),
    "tric_kernel_log": (ctypes.c_char_p, [_P]),
    "tric_mem_alloc": (ctypes.c_int, [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t, _ERR]),
    "tric_mem_free": (ctypes.c_int, [ctypes.c_uint64, _ERR]),
    "tric_memset_d8": (ctypes.c_int, [ctypes.c_uint64, ctypes.c_ubyte, ctypes.c_size_t, _P, _ERR]),
    "tric_synchronize": (ctypes.c_int, [_ERR]),
    "tric_device_arch": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t, _ERR]),
    "tric_device_count": (ctypes.c_int, [ctypes.POINTER(ctypes.c_int), _ERR]),
    "tric_set_device": (ctypes.c_int, [ctypes.c_int, _ERR]),
    "tric_device_attribute": (ctypes.c_int, [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int), _ERR]),
    "tric_get_device": (ctypes.c_int, [ctypes.POINTER(ctypes.c_int), _ERR]),
    "tric_event_create": (ctypes.c_int, [ctypes.POINTER(_P), _ERR]),
    "tric_event_destroy": (ctypes.c_int, [_P, _ERR]),
    "tric_event_record": (ctypes.c_int, [_P, _P, _ERR]),
    "tric_event_synchronize": (ctypes.c_int, [_P, _ERR]),
    "tric_event_elapsed_ms": (ctypes.c_int, [_P, _P, ctypes.POINTER(ctypes.c_float), _ERR]),
    "tric_version": (ctypes.c_char_p, []),
    "tric_free": (None, [_P]),
}


def _load():
    path = _find()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError("tric: cannot load %s: %s" % (path, e)) from None
    for name, (res, args) in _PROTOTYPES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise ImportError("tric: %s has no %s (built from an older tric? run `make`)" % (path, name)) from None
        fn.restype = res
        fn.argtypes = args
    return lib, path


lib, path = _load()

# The launch entry point through PyDLL: the quick call keeps the GIL rather
# than paying for releasing and taking it. (The GIL alone does not keep two
# threads off one kernel's argument slots: the launcher holds a lock.)
launch_packed = ctypes.PyDLL(path).tric_launch_packed_on
launch_packed.restype = ctypes.c_int
launch_packed.argtypes = _PROTOTYPES["tric_launch_packed_on"][1]


def take_error(err):
    """The message a failed call left in err (a c_void_p), freed."""
    if not err.value:
        return "(no message)"
    text = ctypes.string_at(err.value).decode("utf-8", "replace")
    lib.tric_free(err)
    err.value = None
    return text


def raise_status(status, err):
    """Raises the exception for a failed call's status and message."""
    msg = take_error(err).rstrip("\n")
    if status == TRIC_ERR_COMPILE:
        # as in Triton, the cause holds the language's own message (tests and tools read it there)
        first = msg.split("\n", 1)[0]
        raise CompilationError(msg) from ValueError(first.split(" error: ", 1)[-1])
    if status == TRIC_ERR_INTERNAL:
        # a bug in tric: the kernel did not compile, the process goes on
        raise CompilationError(msg)
    if status == TRIC_ERR_ARG:
        raise ValueError(msg)
    if status == TRIC_ERR_INTERPRET:
        raise InterpreterError(msg)
    if status == TRIC_ERR_RESOURCES:
        raise OutOfResources(msg)
    raise DriverError(msg, status)


def call(fn, *args):
    """fn(*args, &errors); raises on a nonzero status."""
    err = ctypes.c_void_p()
    st = fn(*args, ctypes.byref(err))
    if st:
        raise_status(st, err)


def version():
    return lib.tric_version().decode()


def device_arch():
    """The device's arch ("sm_90a"), or None without a driver or device."""
    buf = ctypes.create_string_buffer(16)
    if lib.tric_device_arch(buf, 16, None):
        return None
    return buf.value.decode()
