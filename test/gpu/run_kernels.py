#!/usr/bin/env python3
"""make gpu-test: run every kernel test block of kernels/*.py on the GPU.

Each block (comment lines in the kernel file) says how to compile, launch
and check one specialization:

    # kernel: add_kernel
    # signature: *fp32:16, *fp32:16, *fp32:16, i32, 1024
    # num_warps: 4                      (optional)
    # grid: (cdiv(n, 1024), 1, 1)
    # args: x = rand(n, fp32); y = rand(n, fp32); out = empty(n, fp32); n = 98432
    # check: out == x + y               (several: separated by ';')
    # tol: 1e-6                         (or per output: "h: 1e-3; b: 8e-3"; 0 = exact)

`args` assigns the kernel's runtime arguments in parameter order (constexpr
entries of the signature, and scalars specialized to 1 by ":1", take no
argument, as in `tric --interpret --args`); an assignment may use names
assigned later. Inputs come from fresh random data (seed printed, TRIC_SEED
to repeat); outputs made by empty() are poisoned (NaN / 0xAB bytes) before
the launch. `check` right-hand sides are numpy expressions over float64 (or
int64) copies of the inputs as the kernel saw them; floats pass when
||out - ref|| / ||ref|| <= tol and no unexpected NaN, integers must match
exactly. The kernel is compiled through libtric.so (ctypes) for the device's
arch and launched on torch's current stream.

usage: run_kernels.py [FILE.py ...]     (default: kernels/*.py not starting with '_')
"""
import ctypes
import math
import glob
import os
import re
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB_PATH = os.environ.get("TRIC_LIB", os.path.join(ROOT, "build", "libtric.so"))

# ---------------------------------------------------------------- libtric binding


class TricError(Exception):
    pass


class _Param(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int), ("type", ctypes.c_char_p),
                ("bytes", ctypes.c_int), ("part", ctypes.c_int), ("part_index", ctypes.c_int)]


class _Options(ctypes.Structure):
    # all of tric_options (tric.h): the library reads every field, so a
    # shorter struct would hand it whatever follows in memory
    _fields_ = [("arch", ctypes.c_char_p), ("num_warps", ctypes.c_int), ("num_stages", ctypes.c_int),
                ("debug", ctypes.c_int), ("search_path", ctypes.POINTER(ctypes.c_char_p)),
                ("maxnreg", ctypes.c_int), ("disable_fp_fusion", ctypes.c_int), ("entry_name", ctypes.c_char_p),
                ("launch_cooperative_grid", ctypes.c_int)]


PARAM_POINTER, PARAM_INT, PARAM_FLOAT, PARAM_TENSORMAP = 0, 1, 2, 3
PART_WHOLE, PART_DESC_BASE, PART_DESC_SHAPE, PART_DESC_STRIDE, PART_DESC_TMAP, PART_SCRATCH, PART_TUPLE_ITEM = range(7)

# ctypes type of a scalar parameter, by signature type name
_SCALAR_CTYPES = {
    "i1": ctypes.c_uint8, "i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32,
    "i64": ctypes.c_int64, "u8": ctypes.c_uint8, "u16": ctypes.c_uint16, "u32": ctypes.c_uint32,
    "u64": ctypes.c_uint64, "fp32": ctypes.c_float, "fp64": ctypes.c_double,
}


def _scalar_value(type_name, value):
    """A ctypes value holding `value` as the kernel parameter type expects."""
    if type_name in _SCALAR_CTYPES:
        ctype = _SCALAR_CTYPES[type_name]
        return ctype(float(value) if type_name.startswith("fp") else int(value))
    if type_name == "fp16":
        return ctypes.c_uint16(int(np.array(value, np.float16).view(np.uint16)))
    if type_name == "bf16":
        return ctypes.c_uint16(int(to_bf16_bits(np.array([value], np.float32))[0]))
    raise TricError(f"no ctypes mapping for parameter type {type_name}")


class Kernel:
    def __init__(self, tric, handle):
        self.tric, self.handle = tric, handle
        lib = tric.lib
        self.name = lib.tric_kernel_name(handle).decode()
        self.ptx = lib.tric_kernel_ptx(handle).decode()
        self.arch = lib.tric_kernel_arch(handle).decode()
        self.params = []
        for i in range(lib.tric_kernel_num_params(handle)):
            p = lib.tric_kernel_param(handle, i).contents
            self.params.append((p.name.decode(), p.kind, p.type.decode(), p.bytes, p.part, p.part_index))

    def tensor_map(self, i, base, shape, strides):
        """The 128 bytes of tensor-map parameter i (64-byte aligned in a
        ctypes buffer: (buffer, address))."""
        raw = ctypes.create_string_buffer(128 + 64)
        addr = (ctypes.addressof(raw) + 63) // 64 * 64
        n = len(shape)
        err = ctypes.c_void_p()
        st = self.tric.lib.tric_encode_tensor_map(self.handle, i, base, n, (ctypes.c_int64 * n)(*shape),
                                                  (ctypes.c_int64 * n)(*strides), 0, ctypes.c_void_p(addr),
                                                  ctypes.byref(err))
        self.tric.check(st, err)
        return raw, addr

    def launch(self, grid, values, stream=None):
        """values: one per parameter: an int device address for pointers, a number for scalars,
        (buffer, address) of a tensor map's bytes."""
        if len(values) != len(self.params):
            raise TricError(f"{self.name} takes {len(self.params)} arguments, got {len(values)}")
        keep, addrs = [], []
        for (name, kind, type_name, nbytes, _, _), v in zip(self.params, values):
            if kind == PARAM_TENSORMAP:
                keep.append(v[0])
                addrs.append(v[1])
                continue
            c = ctypes.c_uint64(v) if kind == PARAM_POINTER else _scalar_value(type_name, v)
            if ctypes.sizeof(c) != nbytes:
                raise TricError(f"parameter {name}: {type_name} is {nbytes} bytes, ctypes gives {ctypes.sizeof(c)}")
            keep.append(c)
            addrs.append(ctypes.addressof(c))
        argv = (ctypes.c_void_p * max(len(addrs), 1))(*addrs)
        g = tuple(grid) + (1,) * (3 - len(grid))
        err = ctypes.c_void_p()
        st = self.tric.lib.tric_launch(self.handle, g[0], g[1], g[2], argv, ctypes.c_void_p(stream or 0),
                                       ctypes.byref(err))
        self.tric.check(st, err)

    def __del__(self):
        if getattr(self, "handle", None):
            self.tric.lib.tric_kernel_free(self.handle)
            self.handle = None


class Tric:
    def __init__(self, path=LIB_PATH):
        lib = self.lib = ctypes.CDLL(path)
        vp, cp, ci = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
        lib.tric_compile_file.argtypes = [cp, cp, cp, ctypes.POINTER(_Options), ctypes.POINTER(vp), ctypes.POINTER(vp)]
        lib.tric_compile_file.restype = ci
        lib.tric_launch.argtypes = [vp, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.POINTER(vp), vp,
                                    ctypes.POINTER(vp)]
        lib.tric_launch.restype = ci
        for fn, res in (("tric_kernel_name", cp), ("tric_kernel_ptx", cp), ("tric_kernel_arch", cp),
                        ("tric_kernel_num_params", ci), ("tric_kernel_num_warps", ci),
                        ("tric_kernel_scratch_bytes", ci)):
            getattr(lib, fn).argtypes = [vp]
            getattr(lib, fn).restype = res
        lib.tric_kernel_param.argtypes = [vp, ci]
        lib.tric_kernel_param.restype = ctypes.POINTER(_Param)
        lib.tric_kernel_free.argtypes = [vp]
        lib.tric_encode_tensor_map.argtypes = [vp, ci, ctypes.c_uint64, ci, ctypes.POINTER(ctypes.c_int64),
                                               ctypes.POINTER(ctypes.c_int64), ci, vp, ctypes.POINTER(vp)]
        lib.tric_encode_tensor_map.restype = ci
        lib.tric_free.argtypes = [vp]
        lib.tric_version.restype = cp

    def check(self, status, err):
        if status == 0:
            return
        msg = ctypes.cast(err, ctypes.c_char_p).value.decode(errors="replace") if err.value else ""
        self.lib.tric_free(err)
        raise TricError(msg.rstrip() or f"tric status {status}")

    def compile(self, path, kernel, signature, arch=None, num_warps=0, num_stages=0):
        opt = _Options(arch.encode() if arch else None, num_warps, num_stages)
        handle, err = ctypes.c_void_p(), ctypes.c_void_p()
        st = self.lib.tric_compile_file(path.encode(), kernel.encode(), signature.encode(), ctypes.byref(opt),
                                        ctypes.byref(handle), ctypes.byref(err))
        self.check(st, err)
        return Kernel(self, handle)


# ---------------------------------------------------------------- test blocks

_FIELD = re.compile(r"^#\s*([a-z_]+):\s*(.*?)\s*$")


def parse_blocks(path):
    """The test blocks of a kernel file: dicts of field -> text, plus 'line'."""
    blocks = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            m = _FIELD.match(line)
            if not m:
                continue
            key, value = m.groups()
            if key == "kernel":
                blocks.append({"kernel": value, "line": lineno})
            elif blocks:
                blocks[-1][key] = value
    return blocks


_SIG_TYPE = re.compile(r"^(\*k?)?(i1|i8|i16|i32|i64|u8|u16|u32|u64|fp8e4nv|fp8e5|fp16|bf16|fp32|fp64)(?::(\d+))?$")


def split_top(text, sep):
    """Split on sep outside brackets and strings."""
    parts, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


_SIG_DESC = re.compile(r"^tensordesc<(\w+)\[")


def runtime_entries(signature):
    """(is_pointer, type, specialized_to_one) for each signature entry that takes a runtime argument;
    is_pointer is "desc" for a tensor descriptor, "tuple" for a tuple with typed items (type: the entry)."""
    out = []
    for e in split_top(signature, ","):
        m = _SIG_TYPE.match(e)
        if e.strip().startswith("(") and "=" not in e and tuple_has_types(e):
            out.append(("tuple", e.strip(), False))
        elif m and "=" not in e:
            out.append((bool(m.group(1)), m.group(2), m.group(3) == "1" and not m.group(1)))
        elif _SIG_DESC.match(e):
            out.append(("desc", _SIG_DESC.match(e).group(1), False))
    return out


def tuple_has_types(entry):
    """Does the tuple entry "(i32, (7, *fp16:16))" have an item that is a type (a runtime argument)?"""
    items = [item.strip() for item in split_top(entry.strip()[1:-1], ",")]
    return any(_SIG_TYPE.match(item) or (item.startswith("(") and tuple_has_types(item)) for item in items if item)


def tuple_leaves(v):
    """The leaves of a (nested) tuple or list, depth first."""
    return [x for item in v for x in (tuple_leaves(item) if isinstance(item, (tuple, list)) else [item])]


def tuple_param_values(kernel, first, v):
    """The values of kernel.params[first:] that are items of tuple argument v (numbers only here)."""
    values, leaves = [], tuple_leaves(v)
    i = first
    while i < len(kernel.params) and kernel.params[i][4] == PART_TUPLE_ITEM and (
            i == first or kernel.params[i][0] == kernel.params[first][0]):
        values.append(leaves[kernel.params[i][5]])
        i += 1
    return values


class Desc:
    """desc(array, block, padding=0, shape=None) in a block's args: a host
    tensor descriptor of the array (row-major), as interp/args.c's desc()."""

    def __init__(self, array, block, padding=0, shape=None):
        self.array, self.block, self.padding = array, tuple(block), padding
        self.shape = tuple(shape) if shape is not None else np.shape(array)
        self.strides = tuple(int(np.prod(np.shape(array)[d + 1:])) for d in range(np.ndim(array)))


def desc_param_values(kernel, first, d, address):
    """The values of kernel.params[first:] that describe descriptor d whose
    array lives at device address; returns (values, how many)."""
    values = []
    i = first
    while i < len(kernel.params) and kernel.params[i][0] == kernel.params[first][0]:
        name, kind, type_name, nbytes, part, index = kernel.params[i]
        if part == PART_DESC_BASE:
            values.append(address)
        elif part == PART_DESC_SHAPE:
            values.append(int(d.shape[index]))
        elif part == PART_DESC_STRIDE:
            values.append(d.strides[index])
        elif part == PART_DESC_TMAP:
            values.append(kernel.tensor_map(i, address, [int(x) for x in d.shape], list(d.strides)))
        else:
            break
        i += 1
    return values, i - first


# numpy storage of each element type (bf16 is kept as its 16 bits)
NP_DTYPES = {
    "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
    "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "fp16": np.float16, "bf16": np.uint16,
    "fp32": np.float32, "fp64": np.float64, "fp8e4nv": np.uint8, "fp8e5": np.uint8,
}
FP8_TYPES = ("fp8e4nv", "fp8e5")   # kept as their bits, like bf16
FLOAT_TYPES = ("fp16", "bf16", "fp32", "fp64") + FP8_TYPES
DEFAULT_TOL = {"fp16": 1e-2, "bf16": 2e-2, "fp32": 1e-5, "fp64": 1e-12, "fp8e4nv": 7e-2, "fp8e5": 0.13}
# exponent bits, mantissa bits, bias, largest finite value
FP8_FORMATS = {"fp8e4nv": (4, 3, 7, 448.0), "fp8e5": (5, 2, 15, 57344.0)}


def to_fp8(x, dt):
    """Values rounded to fp8 dt as Triton converts (cvt.rn.satfinite): nearest even,
    out-of-range values and infinities saturate, NaN stays NaN (interp/args.c's to_fp8)."""
    _, m, bias, top = FP8_FORMATS[dt]
    x = np.asarray(x, np.float64)
    a = np.abs(x)
    with np.errstate(all="ignore"):
        _, ex = np.frexp(np.where(np.isfinite(a), a, 1.0))
        q = np.ldexp(1.0, np.maximum(ex - 1, 1 - bias) - m)
        r = np.minimum(np.rint(a / q) * q, top)
        r = np.where(np.isinf(a), top, r)
    return np.where(np.isnan(x), np.nan, np.copysign(r, x))


def to_fp8_bits(x, dt):
    _, m, bias, _ = FP8_FORMATS[dt]
    r = to_fp8(x, dt)
    a = np.abs(np.where(np.isnan(r), 0.0, r))
    _, ex = np.frexp(a)
    biased = ex - 1 + bias
    sub = np.rint(np.ldexp(a, bias - 1 + m))
    norm = (np.maximum(biased, 0) << m) + np.rint(np.ldexp(a, m - (ex - 1))) - (1 << m)
    code = np.where((biased <= 0) | (a == 0), sub, norm).astype(np.int64) | np.where(np.signbit(r), 0x80, 0)
    return np.where(np.isnan(r), 0x7F, code).astype(np.uint8)


def fp8_from_bits(c, dt):
    """The values of the low bytes of c as fp8 dt (every code; NaN codes give NaN)."""
    e, m, bias, _ = FP8_FORMATS[dt]
    c = np.asarray(c).astype(np.int64) & 0xFF
    ex, man = (c >> m) & ((1 << e) - 1), c & ((1 << m) - 1)
    v = np.where(ex == 0, np.ldexp(man.astype(np.float64), 1 - bias - m),
                 np.ldexp((man + (1 << m)).astype(np.float64), ex - bias - m))
    if dt == "fp8e5":
        v = np.where(ex == 31, np.where(man == 0, np.inf, np.nan), v)
    else:
        v = np.where((c & 0x7F) == 0x7F, np.nan, v)
    return np.where(c & 0x80, -v, v)


def to_bf16_bits(a):
    """float32 -> bf16 bits, round to nearest even (as torch does)."""
    u = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    nan = np.isnan(np.asarray(a, np.float32))
    return np.where(nan, 0x7FC0, rounded).astype(np.uint16)


def from_bf16_bits(b):
    return (np.asarray(b, np.uint16).astype(np.uint32) << 16).view(np.float32)


class ArgEnv:
    """The names a block's args/grid/check may use, and the random generators."""

    def __init__(self, rng):
        self.rng = rng
        self.outputs = set()   # ids of arrays made by empty()

    def names(self):
        def shape(s):
            return tuple(s) if isinstance(s, (tuple, list)) else (int(s),)

        def np_float(dt):
            return np.float32 if dt == "bf16" or dt in FP8_TYPES else NP_DTYPES[dt]

        def rand(s, dt="fp32"):
            if dt in FLOAT_TYPES:
                return self.rng.uniform(-1, 1, shape(s)).astype(np_float(dt))
            if dt == "i1":
                return self.rng.integers(0, 2, shape(s)).astype(np.bool_)
            lo = 0 if dt.startswith("u") else -100
            return self.rng.integers(lo, lo + 200, shape(s)).astype(NP_DTYPES[dt])

        def randn(s, dt="fp32"):
            return self.rng.standard_normal(shape(s)).astype(np_float(dt))

        def randint(lo, hi, s, dt="i32"):
            return self.rng.integers(lo, hi, shape(s)).astype(NP_DTYPES[dt])

        def randsign(s, dt="i32"):
            return (self.rng.integers(0, 2, shape(s)) * 2 - 1).astype(NP_DTYPES[dt])

        def empty(s, dt="fp32"):
            a = np.zeros(shape(s), np_float(dt) if dt in FLOAT_TYPES else NP_DTYPES[dt])
            self.outputs.add(id(a))
            return a

        def full(s, v, dt="fp32"):
            return np.full(shape(s), v, np_float(dt) if dt in FLOAT_TYPES else NP_DTYPES[dt])

        def arange(n, dt="i32"):
            return np.arange(n).astype(np_float(dt) if dt in FLOAT_TYPES else NP_DTYPES[dt])

        def philox(seed, offsets, k, rounds=10):
            """Word k of Triton's randint4x(seed, offsets): Philox-4x32 as
            interp/args.c's philox() computes it (counter: offset low, high,
            0, 0; key: seed low, high), in uint64 numpy arithmetic."""
            m = np.uint64(0xFFFFFFFF)
            off = np.asarray(offsets).astype(np.int64).astype(np.uint64)
            c = [off & m, off >> np.uint64(32), off * np.uint64(0), off * np.uint64(0)]
            k0 = np.uint64(seed & 0xFFFFFFFF)
            k1 = np.uint64((seed >> 32) & 0xFFFFFFFF)
            for _ in range(rounds):
                p0 = np.uint64(0xD2511F53) * c[0]
                p1 = np.uint64(0xCD9E8D57) * c[2]
                c = [(p1 >> np.uint64(32)) ^ c[1] ^ k0, p1 & m, (p0 >> np.uint64(32)) ^ c[3] ^ k1, p0 & m]
                k0 = (k0 + np.uint64(0x9E3779B9)) & m
                k1 = (k1 + np.uint64(0xBB67AE85)) & m
            return c[k].astype(np.int64)

        def erfinv(y):   # the normal quantile; 1 - |y| is exact beyond 1/2
            if not abs(y) < 1:
                return math.copysign(math.inf, y) if abs(y) == 1 else math.nan
            if abs(y) < 0.5:
                return statistics.NormalDist().inv_cdf((y + 1) / 2) / math.sqrt(2)
            return math.copysign(-statistics.NormalDist().inv_cdf((1 - abs(y)) / 2), y) / math.sqrt(2)

        env = {"np": np, "cdiv": lambda a, b: -(-a // b), "rand": rand,
               "erf": np.vectorize(math.erf, otypes=[np.float64]), "randn": randn, "randint": randint,
               "erfc": np.vectorize(math.erfc, otypes=[np.float64]),
               "erfinv": np.vectorize(erfinv, otypes=[np.float64]),
               "philox": philox, "arange": arange, "to_fp8": to_fp8, "fp8_from_bits": fp8_from_bits,
               "randsign": randsign, "empty": empty, "full": full, "desc": Desc,
               "zeros": lambda s, dt="fp32": full(s, 0, dt), "ones": lambda s, dt="fp32": full(s, 1, dt),
               "wrap": lambda v, dt: np.asarray(v).astype(np.int64).astype(NP_DTYPES[dt])}
        env.update({t: t for t in NP_DTYPES})
        return env


def eval_args(text, env):
    """Evaluates 'name = expr; ...' (any order) into env; returns the names in written order."""
    pending = []
    for part in split_top(text, ";"):
        name, _, expr = part.partition("=")
        pending.append((name.strip(), expr.strip()))
    order = [n for n, _ in pending]
    while pending:
        left = []
        for name, expr in pending:
            try:
                env[name] = eval(expr, env)
            except NameError:
                left.append((name, expr))
        if len(left) == len(pending):
            raise TricError(f"args: cannot evaluate {', '.join(n for n, _ in left)} (undefined names?)")
        pending = left
    return order


def parse_tol(text, outputs):
    if not text:
        return {}
    if ":" not in text:
        return {o: float(text) for o in outputs}
    tol = {}
    for part in split_top(text, ";"):
        name, _, value = part.partition(":")
        tol[name.strip()] = float(value)
    return tol


# ---------------------------------------------------------------- running one block


class DeviceArg:
    """One pointer argument: a torch byte buffer holding the array as the given element type."""

    def __init__(self, torch, array, type_name, poison):
        self.type_name, self.shape = type_name, np.shape(array)
        if type_name == "bf16":
            host = to_bf16_bits(array)
        elif type_name in FP8_TYPES:
            host = to_fp8_bits(array, type_name)
        else:
            host = np.ascontiguousarray(array).astype(NP_DTYPES[type_name])
        raw = np.ascontiguousarray(host).reshape(-1).view(np.uint8)
        self.tensor = torch.from_numpy(raw.copy()).cuda()
        if poison:
            if type_name in FLOAT_TYPES:
                nan = np.full(host.size, np.nan, np.float32)
                bits = (to_bf16_bits(nan) if type_name == "bf16" else to_fp8_bits(nan, type_name)
                        if type_name in FP8_TYPES else nan.astype(NP_DTYPES[type_name]))
                self.tensor.copy_(torch.from_numpy(bits.view(np.uint8).copy()))
            else:
                self.tensor.fill_(0xAB)

    def read(self):
        """The buffer's values as numpy: float64 for floats, int64 for integers."""
        raw = self.tensor.cpu().numpy()
        if self.type_name == "bf16":
            vals = from_bf16_bits(raw.view(np.uint16))
        elif self.type_name in FP8_TYPES:
            vals = fp8_from_bits(raw, self.type_name)
        else:
            vals = raw.view(NP_DTYPES[self.type_name])
        vals = vals.reshape(self.shape)
        return vals.astype(np.float64) if self.type_name in FLOAT_TYPES else vals.astype(np.int64)


def _at(flat_index, shape):
    return tuple(int(j) for j in np.unravel_index(flat_index, shape))


def compare(out, ref, type_name, tol):
    """None if out matches ref, else a message."""
    ref = np.asarray(ref)
    if ref.shape != out.shape:
        try:
            ref = np.broadcast_to(ref, out.shape)
        except ValueError:
            return f"reference shape {ref.shape} != output shape {out.shape}"
    if type_name not in FLOAT_TYPES:
        want = ref.astype(np.int64).astype(NP_DTYPES[type_name]).astype(np.int64)
        bad = np.flatnonzero(out != want)
        if bad.size:
            i = _at(bad[0], out.shape)
            return f"{bad.size} of {out.size} differ; first at {i}: got {out[i]}, expected {want[i]}"
        return None
    ref = ref.astype(np.float64)
    stray_nan = np.isnan(out) & ~np.isnan(ref)
    if stray_nan.any():
        i = _at(np.flatnonzero(stray_nan)[0], out.shape)
        return f"{int(stray_nan.sum())} NaN in the output (first at {i}: not written?)"
    ok = ~np.isnan(ref)
    diff = np.linalg.norm((out - ref)[ok])
    norm = np.linalg.norm(ref[ok])
    rel = diff / norm if norm > 0 else diff
    if rel > tol:
        i = _at(np.argmax(np.where(ok, np.abs(out - ref), -1)), out.shape)
        return f"relative error {rel:.3g} > {tol:g}; worst at {i}: got {out[i]!r}, expected {ref[i]!r}"
    return None


def run_block(tric, torch, path, block, rng):
    for key in ("signature", "grid", "args", "check"):
        if key not in block:
            raise TricError(f"block has no '# {key}:' line")
    warps = int(block.get("num_warps", 0))
    # TRIC_ARCH=sm_80 runs the Ampere code paths (the driver JITs sm_80 PTX
    # for any newer GPU); unset: the device's own architecture
    kernel = tric.compile(path, block["kernel"], block["signature"], arch=os.environ.get("TRIC_ARCH") or None,
                          num_warps=warps)
    env_maker = ArgEnv(rng)
    env = env_maker.names()
    order = eval_args(block["args"], env)
    entries = [e for e in runtime_entries(block["signature"]) if not e[2]]   # ":1" scalars take no argument
    if len(entries) != len(order):
        raise TricError(f"args gives {len(order)} values, the signature has {len(entries)} runtime arguments")
    checks = []
    for c in split_top(block["check"], ";"):
        m = re.match(r"^(\w+)\s*==\s*(.+)$", c, re.S)
        if not m:
            raise TricError(f"check '{c}' is not 'name == expression'")
        checks.append(m.groups())
    outputs = {name for name, _ in checks}
    device, values = {}, []
    for name, (is_ptr, type_name, _) in zip(order, entries):
        v = env[name]
        if is_ptr == "tuple":   # its items that are parameters
            values += tuple_param_values(kernel, len(values), v)
        elif is_ptr == "desc":   # its array as the buffer of this name, then its parameters
            device[name] = DeviceArg(torch, v.array, type_name, poison=id(v.array) in env_maker.outputs)
            more, _ = desc_param_values(kernel, len(values), v, device[name].tensor.data_ptr())
            values += more
        elif is_ptr:
            device[name] = DeviceArg(torch, v, type_name, poison=id(v) in env_maker.outputs)
            values.append(device[name].tensor.data_ptr())
        else:
            values.append(v)
    grid = eval(block["grid"], env)
    grid = (grid,) if isinstance(grid, int) else tuple(int(g) for g in grid)
    scratch = None
    if kernel.params and kernel.params[-1][4] == PART_SCRATCH:   # tensor maps made in the kernel
        programs = math.prod(grid)
        scratch = torch.empty(kernel.tric.lib.tric_kernel_scratch_bytes(kernel.handle) * programs, dtype=torch.uint8,
                              device="cuda")
        values.append(scratch.data_ptr())
    kernel.launch(grid, values, torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    # the reference sees the inputs exactly as the kernel did (rounded to their type)
    ref_env = dict(env)
    for name, d in device.items():
        if name not in outputs:
            ref_env[name] = d.read()
    tol = parse_tol(block.get("tol"), outputs)
    problems = []
    for name, expr in checks:
        if name not in device:
            raise TricError(f"check names '{name}', which is not a pointer argument")
        t = device[name].type_name
        msg = compare(device[name].read(), eval(expr, ref_env), t, tol.get(name, DEFAULT_TOL.get(t, 0)))
        if msg:
            problems.append(f"{name}: {msg}")
    return kernel, problems


def main(argv):
    import torch   # only here: the parsing helpers above serve bench.py and tests without a GPU

    if not torch.cuda.is_available():
        print("run_kernels: no CUDA device")
        return 1
    torch.cuda.init()
    files = argv or sorted(p for p in glob.glob(os.path.join(ROOT, "kernels", "*.py"))
                           if not os.path.basename(p).startswith("_"))
    seed = int(os.environ.get("TRIC_SEED", int(time.time() * 1000) % 2**31))
    print(f"run_kernels: seed {seed} (TRIC_SEED={seed} repeats this run), libtric {LIB_PATH}")
    tric = Tric()
    npass = nfail = 0
    for path in files:
        for i, block in enumerate(parse_blocks(path), 1):
            label = f"{os.path.basename(path)}#{i} {block['kernel']}"
            rng = np.random.default_rng([seed, i, sum(map(ord, path))])
            # "# arch: sm_89 sm_90a": the block needs one of these (fp8 needs sm_89+)
            archs = block.get("arch", "").replace(",", " ").split()
            if archs and os.environ.get("TRIC_ARCH") and os.environ["TRIC_ARCH"] not in archs:
                print(f"[SKIP] {label} (TRIC_ARCH={os.environ['TRIC_ARCH']}; the block runs on {' '.join(archs)})")
                continue
            try:
                kernel, problems = run_block(tric, torch, path, block, rng)
                label += f" ({kernel.arch}, {block.get('num_warps', 4)} warps)"
            except Exception as e:   # a compile or launch error fails this block only
                if archs and "needs sm_89 or newer" in str(e):
                    print(f"[SKIP] {label} (the device is older than {' '.join(archs)})")
                    continue
                problems = [f"{type(e).__name__}: {e}"]
            if problems:
                nfail += 1
                print(f"[FAIL] {label}")
                for p in problems:
                    print("    " + p.replace("\n", "\n    "))
            else:
                npass += 1
                print(f"[PASS] {label}")
    print(f"{npass} passed, {nfail} failed")
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
