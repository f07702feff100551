"""@jit: a kernel object that binds arguments, specializes, compiles through
libtric (once per specialization: memory here, disk in the C runtime) and
launches with one call into C.

The launch path is the hot path. Per kernel, a binder with the kernel's own
parameter list is generated once (Python binds the arguments, defaults
included, and computes the specialization key in the same call); per
compiled specialization, a launcher that writes each run-time argument into
a preallocated array of 64-bit slots and calls tric_launch_packed.

With TRIC_INTERPRET=1 in the environment at launch, kernel[grid](...) runs
on tric's CPU interpreter (tric_interpret) instead: pointer arguments are
host arrays (numpy arrays, CPU torch tensors, writable buffers such as
array.array), each a bounds-checked buffer named after its parameter.
"""
import collections
import contextvars
import copy
import ctypes
import hashlib
import inspect
import numbers
import os
import re
import struct
import sys
import threading

from . import _lib
from . import knobs
from . import language as tl
from . import units

_ABSENT = object()
_RUNTIME_KNOBS = knobs.runtime
DEFAULT_NUM_WARPS = 4
DEFAULT_NUM_STAGES = 3

# What a launch's options compile into: a part of the kernel cache's key.
CompileOptions = collections.namedtuple(
    "CompileOptions", "num_warps num_stages debug num_ctas maxnreg enable_fp_fusion arch launch_cooperative_grid")
_DEFAULT_OPTIONS = {}   # (debug, default_fp_fusion, override_arch) -> CompileOptions
_Specialization = collections.namedtuple("SpecializationProxy", "constants signature")


def _arch_option(v):
    """Triton's arch spellings ("sm80", "sm_90a", 90) as tric's "sm_90a";
    None stays None (the device's)."""
    if v is None or v == "":
        return None
    s = str(v)
    s = s[2:] if s.startswith("sm") else s
    return "sm_" + s.lstrip("_")


_SIG_TYPE = re.compile(r"\*|tensordesc<|(i|u|fp|bf)\d")


def _split_signature(sig):
    """A signature's top-level entries (tuples and strings keep their commas)."""
    out, depth, cur, quote = [], 0, [], None
    for ch in sig:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        else:
            depth += ch in "(<"
            depth -= ch in ")>"
        if ch == "," and depth == 0 and not quote:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    return out

# ---- dtypes -> signature spellings ----

# names used by torch ("torch.float32") and numpy ("float32")
_DTYPE_NAMES = {
    "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64", "int8": "i8", "int16": "i16",
    "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "i1",
    "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
}
_SIG_TYPES = {"i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp8e4nv", "fp8e5", "fp16", "bf16",
              "fp32", "fp64"}
_TRITON_NAMES = {name: sig for name, (bits, sig) in tl.dtype._INFO.items()}   # "int32" -> "i32"

# __cuda_array_interface__ typestr kind + bytes
_TYPESTR = {("f", 2): "fp16", ("f", 4): "fp32", ("f", 8): "fp64", ("i", 1): "i8", ("i", 2): "i16",
            ("i", 4): "i32", ("i", 8): "i64", ("u", 1): "u8", ("u", 2): "u16", ("u", 4): "u32",
            ("u", 8): "u64", ("b", 1): "i1"}


def dtype_sig(d):
    """The signature spelling ("fp32") of a dtype: tl.float32, torch.float32,
    a numpy dtype, or a name ("fp32", "float32", "torch.float32")."""
    if isinstance(d, tl.dtype):
        return d.sig
    if isinstance(d, str):
        name = d
    elif isinstance(d, type):
        name = d.__name__   # numpy.float16
    elif type(d).__module__.startswith("numpy"):
        name = getattr(d, "name", str(d))
    else:
        name = str(d)   # torch.float32 -> "torch.float32"
    if name.startswith("torch."):
        name = name[len("torch."):]
    sig = _DTYPE_NAMES.get(name) or _TRITON_NAMES.get(name) or (name if name in _SIG_TYPES else None)
    if sig is None:
        raise TypeError("tric: unsupported dtype %r" % (d,))
    return sig


def is_dtype_like(v):
    """torch/numpy/tl dtypes (what kernel.warmup accepts for a tensor)."""
    if isinstance(v, tl.dtype):
        return True
    if isinstance(v, type):
        return v.__module__ == "numpy" and v.__name__ in _DTYPE_NAMES   # numpy.float16
    t = type(v)
    return (t.__name__ == "dtype" and t.__module__ in ("torch", "numpy")) or t.__module__.startswith("numpy.dtypes")


def _warmup_dtype(v):
    """The dtype a warmup argument stands for, or None if it is a value."""
    if isinstance(v, str):
        return v[1:] if v.startswith("*") else None
    return v if is_dtype_like(v) else None


def _typestr_sig(typestr):
    sig = _TYPESTR.get((typestr[1:2], int(typestr[2:] or 0)))
    if sig is None:
        raise TypeError("tric: unsupported __cuda_array_interface__ typestr %r" % (typestr,))
    return sig


class MockTensor:
    """A tensor stand-in for kernel.warmup: a dtype at address 0."""

    def __init__(self, dtype):
        self.dtype = dtype

    @staticmethod
    def data_ptr():
        return 0


# ---- specialization ----
# Each run-time argument's key is its signature entry itself ("*fp32:16",
# "i32:1", "i64", "fp32", "i1", "None"), so the key tuple is also what the
# signature string is joined from. Triton's rules: an int is i32, u64 or
# i64 by value; == 1 becomes the constant 1; ints and addresses divisible
# by 16 get the :16 hint; floats are fp32, bools i1, None a constexpr None.
# Three modes: 0 full, 1 do_not_specialize_on_alignment (no :16), 2
# do_not_specialize (type only).

_I32_MIN, _I32_MAX = -(1 << 31), (1 << 31) - 1
_U64_LO, _U64_MAX, _I64_MIN = 1 << 63, (1 << 64) - 1, -(1 << 63)


def _int_type(a):
    if _I32_MIN <= a <= _I32_MAX:
        return "i32"
    if _I64_MIN <= a < _U64_LO:
        return "i64"
    if _U64_LO <= a <= _U64_MAX:
        return "u64"
    raise OverflowError("tric: integer argument %d does not fit in 64 bits" % a)


def _spec_int(a):
    if a == 1:
        return "i32:1"
    t = _int_type(a)
    return t + ":16" if a % 16 == 0 else t


def _spec_int_noalign(a):
    return "i32:1" if a == 1 else _int_type(a)


def _spec_int_nospec(a):
    return _int_type(a)


def _spec_float(a):
    return "fp32"


def _spec_bool(a):
    return "i1"


def _spec_none(a):
    return "None"


def _is_tensor_descriptor(a):
    """A host tensor descriptor (tric.tools.tensor_descriptor.TensorDescriptor
    or anything with its fields: base, shape, strides, block_shape)."""
    return all(hasattr(a, f) for f in ("base", "shape", "strides", "block_shape"))


def _spec_desc(a):
    """"tensordesc<fp16[64, 64]>": the element type and block shape, ",nan"
    for NaN padding, ":16" when the shape's last dim is a multiple of 16
    (which lets the loads of a block be vectors)."""
    pad = ",nan" if getattr(a, "padding", "zero") == "nan" else ""
    hint = ":16" if int(a.shape[-1]) % 16 == 0 else ""
    return "tensordesc<%s[%s]%s>%s" % (dtype_sig(a.base.dtype), ", ".join(str(int(d)) for d in a.block_shape), pad,
                                       hint)


_ptr_sigs = {}   # (dtype, aligned) -> "*fp32:16"


def _ptr_sig(d, aligned):
    sig = _ptr_sigs.get((d, aligned))
    if sig is None:
        sig = "*" + dtype_sig(d) + (":16" if aligned else "")
        _ptr_sigs[d, aligned] = sig
    return sig


def _spec_tensor(a):
    return _ptr_sigs.get((a.dtype, a.data_ptr() % 16 == 0)) or _ptr_sig(a.dtype, a.data_ptr() % 16 == 0)


def _spec_tensor_noalign(a):
    return _ptr_sigs.get((a.dtype, False)) or _ptr_sig(a.dtype, False)


def _spec_cai(a):
    cai = a.__cuda_array_interface__
    return "*" + _typestr_sig(cai["typestr"]) + (":16" if cai["data"][0] % 16 == 0 else "")


def _spec_cai_noalign(a):
    return "*" + _typestr_sig(a.__cuda_array_interface__["typestr"])


_INT_FNS = (_spec_int, _spec_int_noalign, _spec_int_nospec)
_TENSOR_FNS = (_spec_tensor, _spec_tensor_noalign, _spec_tensor_noalign)
_CAI_FNS = (_spec_cai, _spec_cai_noalign, _spec_cai_noalign)


def _spec_fn(a, mode):
    """The key function for arguments of a's type (decided once per type)."""
    t = type(a)
    if t is bool or (t.__module__ == "numpy" and t.__name__ == "bool_"):
        return _spec_bool
    if t is type(None):
        return _spec_none
    if issubclass(t, numbers.Integral):
        fn = _INT_FNS[mode]
        return fn if t is int else (lambda a, fn=fn: fn(int(a)))
    if issubclass(t, numbers.Real):
        return _spec_float
    if hasattr(a, "data_ptr"):
        return _TENSOR_FNS[mode]
    if hasattr(a, "__cuda_array_interface__"):
        return _CAI_FNS[mode]
    if _is_tensor_descriptor(a):
        return _spec_desc
    return None


def _is_constexpr(v):
    """A tl.constexpr of tric's or of Triton's language (code written for
    Triton wraps values in its own, inside tuples too)."""
    t = type(v)
    return t is tl.constexpr or (t.__name__ == "constexpr" and t.__module__.startswith("triton.language")
                                 and hasattr(v, "value"))


def _make_spec(mode):
    """A key function for one specialization mode, with a per-type table."""
    table = {}

    def spec_tuple(a):
        """A tuple argument (torch.Size too): its items, tl.constexpr ones
        as values, in parentheses."""
        items = [_spell_constexpr("a tuple item", x.value) if _is_constexpr(x) else spec(x) for x in a]
        return "(%s%s)" % (", ".join(items), "," if len(items) == 1 else "")

    def spec(a):
        try:
            return table[type(a)](a)
        except KeyError:
            pass
        t = type(a)
        if _is_constexpr(a):
            return spec(a.value)
        fn = spec_tuple if isinstance(a, tuple) else _spec_fn(a, mode)
        if fn is None:
            raise TypeError("tric: cannot pass an argument of type %s to a kernel (expected a tensor, "
                            "a tensor descriptor, an int, a float, a bool, None or a tuple of those)" % t.__name__)
        table[t] = fn
        return fn(a)
    return spec


_SPEC = (_make_spec(0), _make_spec(1), _make_spec(2))


def _annotated_sig(ann):
    """The signature type a dtype annotation fixes ("n: tl.int64" -> "i64"),
    or None. Annotations are objects, or strings under `from __future__
    import annotations`."""
    if isinstance(ann, str):
        ann = getattr(tl, ann.rsplit(".", 1)[-1], None)
    return ann.sig if isinstance(ann, tl.dtype) else None


def _is_const_annotation(ann):
    """`x_ptr: tl.const` (tric's or Triton's tl.const, or the string)."""
    name = ann if isinstance(ann, str) else getattr(ann, "__name__", None) if isinstance(ann, type) else None
    return isinstance(name, str) and name.rsplit(".", 1)[-1] == "const"


def _const_spec(spec):
    """spec for a tl.const parameter: a pointer is spelled "*k..." (the
    kernel may not store through it)."""
    def const_spec(a):
        s = spec(a)
        return "*k" + s[1:] if isinstance(s, str) and s.startswith("*") and not s.startswith("*k") else s
    return const_spec


def _annotated_spec(sig, mode):
    """Triton's rule for a parameter with a dtype annotation: the type is
    fixed (no i32/i64 choice by value, no constant 1); an integer still gets
    the :16 hint unless specialization is off; floats are never specialized."""
    if sig[0] not in "iu" or mode != 0:
        return lambda a: sig
    hinted = sig + ":16"
    return lambda a: hinted if int(a) % 16 == 0 else sig


def _constexpr_key(v):
    """A hashable key for a constexpr value: by type too, as 1, 1.0 and
    True specialize differently."""
    t = type(v)
    if _is_constexpr(v):
        return _constexpr_key(v.value)
    if t in (list, tuple):
        return (t, tuple(_constexpr_key(x) for x in v))
    return (t, v)


def _spell_constexpr(name, v):
    """A constexpr value in the signature's spelling."""
    v = v.value if _is_constexpr(v) else v
    if v is None or isinstance(v, bool):
        return repr(v)
    if isinstance(v, tuple):
        return "(%s%s)" % (", ".join(_spell_constexpr(name, x) for x in v), "," if len(v) == 1 else "")
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        f = float(v)
        if f != f or f in (float("inf"), float("-inf")):
            raise ValueError("tric: constexpr %s = %r: infinities and NaN cannot be constexprs" % (name, v))
        return repr(f)
    if isinstance(v, str):
        if "'" not in v:
            return "'%s'" % v
        if '"' not in v:
            return '"%s"' % v
        raise ValueError("tric: constexpr %s: a string with both quote characters cannot be passed" % name)
    if isinstance(v, tl.pointer_type):
        raise TypeError("tric: constexpr %s = %r: pointer types cannot be constexprs" % (name, v))
    if is_dtype_like(v):
        return "dtype(%s)" % dtype_sig(v)
    raise TypeError("tric: constexpr %s = %r: tric passes ints, floats, bools, None, strings and dtypes as "
                    "constexprs, not %s" % (name, v, type(v).__name__))


# ---- devices and streams ----
# A launch goes to the device its tensor arguments live on (torch's
# get_device()), else to torch's current device, on that device's current
# torch stream; without torch, to the calling thread's CUDA context (the C
# library's rule) on the default stream.

def current_device():
    """torch's current CUDA device when torch is imported, else -1 (the C
    library's "the current context")."""
    torch = sys.modules.get("torch")
    if torch is None:
        return -1
    try:
        return torch._C._cuda_getDevice()
    except (AttributeError, RuntimeError):
        return -1


def current_stream(device=-1):
    """torch's current CUDA stream on `device` (-1: its current device) when
    torch is imported, else None (the default stream)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    try:
        if device < 0:
            device = torch._C._cuda_getDevice()
        return torch._C._cuda_getCurrentRawStream(device) or None
    except (AttributeError, RuntimeError):
        return None


def _tensors_device(args):
    """The device the tensors of args, (name, value) pairs, live on (as their
    get_device() says); torch's current device when none says. A CPU tensor
    or tensors on two devices are refused: the kernel could not read them.
    Pinned host memory is read through unified addressing, as in Triton: it
    does not choose the device."""
    device = first = None
    for name, a in args:
        where = getattr(a, "get_device", None)
        if where is None:
            continue
        d = where()
        if d < 0 and getattr(a, "is_pinned", lambda: False)():
            continue
        if d < 0:
            raise ValueError("tric: argument '%s' is a CPU tensor; a kernel reads GPU memory only "
                             "(move it with .cuda())" % name)
        if device is None:
            device, first = d, name
        elif d != device:
            raise ValueError("tric: argument '%s' is on cuda:%d but '%s' is on cuda:%d; a kernel's tensors "
                             "must be on one device" % (name, d, first, device))
    return current_device() if device is None else device


# ---- compiled kernels ----

def _compile_handle(text, name, signature, o, entry):
    """tric_compile_source of a units text: the kernel's handle."""
    opts = _lib._Options(o.arch.encode() if o.arch else None, o.num_warps, o.num_stages, 1 if o.debug else 0,
                         None, o.maxnreg or 0, 0 if o.enable_fp_fusion else 1, entry.encode() if entry else None,
                         1 if o.launch_cooperative_grid else 0)
    handle, err = ctypes.c_void_p(), ctypes.c_void_p()
    st = _lib.lib.tric_compile_source(("<units of %s>" % name).encode(), text.encode("utf-8"), name.encode(),
                                      signature.encode(), ctypes.byref(opts), ctypes.byref(handle), ctypes.byref(err))
    if st:
        _lib.raise_status(st, err)
    return handle.value


class KernelMetadata:
    """compiled.metadata: what the compile decided."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def _asdict(self):
        return dict(self.__dict__)

    def __repr__(self):
        return "KernelMetadata(%s)" % ", ".join("%s=%r" % kv for kv in sorted(self.__dict__.items()))


def _leaf(t, index):
    """Leaf `index` of tuple t flattened depth first (a tl.constexpr item is
    a leaf, as the signature counts it)."""
    stack = [iter(t)]
    while stack:
        for x in stack[-1]:
            if isinstance(x, tuple):
                stack.append(iter(x))
                break
            if index == 0:
                return x
            index -= 1
        else:
            stack.pop()
    raise IndexError("tric: the tuple argument has fewer items than the kernel was compiled for")


class KernelParam:
    """One launch parameter: a whole argument, or (part != PART_WHOLE) the
    base, shape[index] or strides[index] of a tensor descriptor argument."""

    def __init__(self, name, kind, type, bytes, part=_lib.PART_WHOLE, index=0):
        self.name, self.kind, self.type, self.bytes, self.part, self.index = name, kind, type, bytes, part, index

    def expr(self, a):
        """The Python expression for this parameter of argument text a."""
        if self.part == _lib.PART_TUPLE_ITEM:
            return "_leaf(%s, %d)" % (a, self.index)
        if self.part == _lib.PART_DESC_BASE:
            return a + ".base"
        if self.part == _lib.PART_DESC_SHAPE:
            return "%s.shape[%d]" % (a, self.index)
        if self.part == _lib.PART_DESC_STRIDE:
            return "%s.strides[%d]" % (a, self.index)
        return a

    def value(self, a):
        """This parameter's value, from its argument a."""
        if self.part == _lib.PART_TUPLE_ITEM:
            return _leaf(a, self.index)
        if self.part == _lib.PART_DESC_BASE:
            return a.base
        if self.part == _lib.PART_DESC_SHAPE:
            return int(a.shape[self.index])
        if self.part == _lib.PART_DESC_STRIDE:
            return int(a.strides[self.index])
        return a

    def __repr__(self):
        return "KernelParam(%s: %s)" % (self.name, self.type)


# ---- global scratch (tensor descriptors made in a kernel) ----

# per context, as Triton's (a ContextVar: threads and asyncio tasks may differ)
_allocator = contextvars.ContextVar("tric_allocator", default=None)


def set_allocator(allocator):
    """As Triton's: allocator(size, alignment, stream) returns device memory
    (an object with data_ptr(), a torch tensor say) that a launch uses as
    its global scratch: where a kernel that calls tl.make_tensor_descriptor
    writes the tensor maps it makes."""
    _allocator.set(allocator)


def _triton_allocator():
    """The allocator given to the real Triton's set_allocator, where Triton
    is imported beside tric (code written for Triton that launches tric
    kernels, its own set_allocator calls unchanged); None if none."""
    mod = sys.modules.get("triton.runtime._allocation")
    var = getattr(mod, "_allocator", None)
    allocator = var.get() if isinstance(var, contextvars.ContextVar) else None
    return None if allocator is None or type(allocator).__name__ == "NullAllocator" else allocator


def _scratch(nbytes, stream, device):
    """Device scratch of nbytes from the allocator, on the launch's device
    (the allocator allocates on torch's current one), and its address."""
    allocator = _allocator.get() or _triton_allocator()
    if allocator is None:
        raise RuntimeError("Kernel requires a runtime memory allocation, but no allocator was set. "
                           "Use triton.set_allocator to specify an allocator.")
    torch = sys.modules.get("torch")
    if torch is None or device < 0 or device == current_device():
        mem = allocator(nbytes, 128, stream or 0)
    else:
        with torch.cuda.device(device):
            mem = allocator(nbytes, 128, stream or 0)
    return mem, _pointer_of(mem)


class _TensorMapEncoder:
    """enc(desc) -> the address of desc's tensor map for parameter i of a
    compiled kernel, encoded into this encoder's own 64-byte-aligned bytes
    (the launch copies them: one encoder per parameter is enough). For the
    interpreter (interp=True), tric's own encoding of a HostBuffer base."""

    def __init__(self, handle, i, interp=False):
        self._raw = ctypes.create_string_buffer(_lib.TMAP_BYTES + 64)
        self.address = (ctypes.addressof(self._raw) + 63) // 64 * 64
        self._args = (handle, i)
        self._interp = 1 if interp else 0
        self._err = ctypes.c_void_p()

    def __call__(self, d):
        rank = len(d.shape)
        shape = (ctypes.c_int64 * rank)(*[int(x) for x in d.shape])
        strides = (ctypes.c_int64 * rank)(*[int(x) for x in d.strides])
        base = d.base.address if self._interp else _pointer_of(d.base)
        st = _lib.lib.tric_encode_tensor_map(self._args[0], self._args[1], base, rank, shape, strides, self._interp,
                                             self.address, ctypes.byref(self._err))
        if st:
            _lib.raise_status(st, self._err)
        return self.address


def _pointer_of(a):
    """A device address from a tensor-like argument."""
    ptr = getattr(a, "data_ptr", None)
    if ptr is not None:
        return ptr()
    cai = getattr(a, "__cuda_array_interface__", None)
    if cai is not None:
        return cai["data"][0]
    raise TypeError("tric: expected a tensor (data_ptr() or __cuda_array_interface__), got %s" % type(a).__name__)


class CompiledKernel:
    """One specialization, compiled: asm['ptx'], asm['ir'] (the IR after all
    passes), metadata, n_regs and n_spills (from the driver), est_regs
    (tric's estimate of n_regs made before ptxas; above 255 the kernel would
    spill), and a launch
    entry point. compiled[grid](*args) launches it with the arguments of the
    @jit function (all of them, constexprs included, in order)."""

    # Kept out of __dict__, which tools copy to move a compiled kernel to
    # another process (torch's Inductor compiles in worker processes): the
    # library's handle and the generated launcher belong to this process,
    # and _init_handles() makes them again from _reload there.
    __slots__ = ("_handle", "_launch", "_launch_metadata_fn", "__dict__", "__weakref__")

    def __init__(self, handle, arg_names, signature, options, launch_metadata=None, reload=None):
        self._handle = handle
        self._reload = reload   # (units text, kernel, signature, CompileOptions, entry name): compiles it again
        lib = _lib.lib
        self.name = lib.tric_kernel_name(handle).decode()
        self.asm = {"ptx": lib.tric_kernel_ptx(handle).decode(), "ir": (lib.tric_kernel_ir(handle) or b"").decode()}
        self.params = []
        for i in range(lib.tric_kernel_num_params(handle)):
            p = lib.tric_kernel_param(handle, i).contents
            self.params.append(KernelParam(p.name.decode(), p.kind, p.type.decode(), p.bytes, p.part, p.part_index))
        self.metadata = KernelMetadata(
            name=self.name, num_warps=lib.tric_kernel_num_warps(handle), num_stages=options.num_stages,
            shared=lib.tric_kernel_shared_bytes(handle), arch=lib.tric_kernel_arch(handle).decode(),
            signature=signature, cache_hit=bool(lib.tric_kernel_cache_hit(handle)), num_ctas=options.num_ctas,
            maxnreg=options.maxnreg, enable_fp_fusion=options.enable_fp_fusion, debug=options.debug,
            cluster_dims=(1, 1, 1), launch_cooperative_grid=options.launch_cooperative_grid, launch_pdl=False,
            global_scratch_size=lib.tric_kernel_scratch_bytes(handle), profile_scratch_size=0)
        # what Triton's compiled kernels also carry, for tools that drive them
        # (torch's Inductor): src and hash (set by triton.compiler.compile),
        # the launch handle, and (num_warps, num_ctas, shared) packed
        self.src = self.hash = None
        self.function = handle
        self.packed_metadata = (self.metadata.num_warps, options.num_ctas, self.metadata.shared)
        self._launch_metadata_fn = launch_metadata
        # tric's estimate of the registers per thread, before ptxas (no GPU needed)
        self.est_regs = lib.tric_kernel_estimated_registers(handle)
        self.arg_names = list(arg_names)
        self._attrs = None
        self._launch = self._make_launcher()

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle and _lib is not None and _lib.lib is not None:
            _lib.lib.tric_kernel_free(handle)

    def __repr__(self):
        return "<tric.CompiledKernel %s [%s]>" % (self.name, self.metadata.signature)

    def _attributes(self):
        if self._attrs is None:
            regs, local = ctypes.c_int(), ctypes.c_int()
            _lib.call(_lib.lib.tric_kernel_attributes, self._handle, ctypes.byref(regs), ctypes.byref(local))
            self._attrs = (regs.value, local.value)
        return self._attrs

    def _init_handles(self):
        """Loads the kernel on the GPU (as Triton's, which the softmax
        tutorial calls before reading n_regs); in another process than the
        one that compiled it (a copy of its state), first gets the kernel
        again, from the disk cache."""
        if getattr(self, "_handle", None) is None:
            text, name, signature, o, entry = self._reload
            self._handle = _compile_handle(text, name, signature, o, entry)
            self._launch = self._make_launcher()
            self._launch_metadata_fn = None
            self._attrs = None
        self.__dict__.pop("run", None)   # a copied state may say run=None: the method launches
        self.function = self._handle
        self._attributes()

    def launch_metadata(self, grid, stream, *args):
        """What launch hooks are given about a launch: the kernel's name,
        grid and stream, plus what jit(launch_metadata=f) adds:
        f(grid, metadata, {parameter: argument})."""
        out = {"name": self.name, "grid": grid, "stream": stream}
        if self._launch_metadata_fn is not None:
            out.update(self._launch_metadata_fn(grid, self.metadata, dict(zip(self.arg_names, args))) or {})
        return out

    def run(self, gx, gy, gz, stream, function, packed_metadata, launch_metadata, enter_hook, exit_hook, *args):
        """Triton's launch entry: every argument of the @jit function in
        order (constexprs too, which are baked in); function and
        packed_metadata are this kernel's own. enter_hook / exit_hook, when
        not None, are called with launch_metadata around the launch."""
        if enter_hook is not None:
            enter_hook(launch_metadata)
        if gx and gy and gz:
            if interpreting():
                self._interpret(gx, gy, gz, [host_arg(a) for a in args])
            else:
                self._launch(gx, gy, gz, stream, args, self.packed_metadata[1])
        if exit_hook is not None:
            exit_hook(launch_metadata)

    @property
    def n_regs(self):
        """Registers per thread (cuFuncGetAttribute NUM_REGS); needs a GPU."""
        return self._attributes()[0]

    @property
    def n_spills(self):
        """Spilled 32-bit values per thread (LOCAL_SIZE_BYTES / 4, as Triton
        counts them); needs a GPU."""
        return self._attributes()[1] // 4

    def _make_launcher(self):
        """launch(gx, gy, gz, stream, bound_args, ctas=1): writes each
        run-time argument into its 64-bit slot (the C side reads the low
        bytes) and calls tric_launch_packed_on with the device of the tensor
        arguments, on `stream` or (None) that device's current stream (ctas:
        the launch's num_ctas, which only sizes the scratch). Generated
        once, so a launch is a few stores, a device check per tensor and one
        foreign call."""
        n = max(1, len(self.params))
        buf = bytearray(8 * n)
        raw = (ctypes.c_char * len(buf)).from_buffer(buf)
        mv = memoryview(buf)
        env = {"q": mv.cast("q"), "Q": mv.cast("Q"), "f": mv.cast("f"), "d": mv.cast("d"),
               "_raw": raw, "_addr": ctypes.addressof(raw), "_h": self._handle, "_call": _lib.launch_packed,
               "_err": ctypes.c_void_p(), "_ptr": _pointer_of, "_raise": _lib.raise_status, "_leaf": _leaf,
               "_lock": threading.Lock(), "_tensors_device": _tensors_device,
               "_current_device": current_device, "_current_stream": current_stream}
        env["_eref"] = ctypes.byref(env["_err"])
        index = {name: i for i, name in enumerate(self.arg_names)}
        fast, slow, tensors = [], [], []
        per_program = _lib.lib.tric_kernel_scratch_bytes(self._handle)
        env["_scratch"], env["_keep"] = _scratch, [None]
        for slot, p in enumerate(self.params):
            if p.part == _lib.PART_SCRATCH:   # kept until the next launch (the allocator's memory may be a tensor)
                # per CTA, as Triton asks for it: num_ctas times per program
                fast.append("_keep[0], q[%d] = _scratch(%d * gx * gy * gz * ctas, stream, dev)" % (slot, per_program))
                continue
            a = p.expr("b[%d]" % index[p.name])
            if p.kind == _lib.PARAM_TENSORMAP:
                env["_tm%d" % slot] = _TensorMapEncoder(self._handle, slot)
                fast.append("q[%d] = _tm%d(%s)" % (slot, slot, a))
            elif p.kind == _lib.PARAM_POINTER:
                fast.append("q[%d] = %s.data_ptr()" % (slot, a))
                slow.append("q[%d] = _ptr(%s)" % (slot, a))
                tensors.append((p.name, a))
            elif p.type == "u64":
                fast.append("Q[%d] = %s" % (slot, a))
            elif p.kind == _lib.PARAM_INT:
                fast.append("q[%d] = %s" % (slot, a))
            elif p.type == "fp32":
                fast.append("f[%d] = %s" % (2 * slot, a))
            elif p.type == "fp64":
                fast.append("d[%d] = %s" % (slot, a))
            else:
                raise TypeError("tric: cannot pass a %s scalar from Python (parameter %s)" % (p.type, p.name))
        scalars = [s for s in fast if ".data_ptr()" not in s]
        # one set of slots per compiled kernel: threads take turns with it
        lines = ["def launch(gx, gy, gz, stream, b, ctas=1):", "  with _lock:"]
        if slow:
            named = "(%s,)" % ", ".join("(%r, %s)" % t for t in tensors)
            lines.append("    try:")
            lines += ["        " + s for s in fast if ".data_ptr()" in s]
            lines.append("        dev = %s.get_device()" % tensors[0][1])
            lines.append("        if dev < 0%s:" % "".join(" or %s.get_device() != dev" % a for _, a in tensors[1:]))
            lines.append("            dev = _tensors_device(%s)" % named)
            lines.append("    except AttributeError:")
            lines += ["        " + s for s in slow]
            lines.append("        dev = _tensors_device(%s)" % named)
        else:
            lines.append("    dev = _current_device()")
        lines.append("    if stream is None:")
        lines.append("        stream = _current_stream(dev)")
        lines += ["    " + s for s in scalars]
        lines.append("    st = _call(_h, dev, gx, gy, gz, stream, _addr, _eref)")
        lines.append("    if st:")
        lines.append("        _raise(st, _err)")
        exec(compile("\n".join(lines), "<tric launcher %s>" % self.name, "exec"), env)
        return env["launch"]

    def _interpret(self, gx, gy, gz, b):
        """Runs on the CPU interpreter with b, the bound arguments (host
        arrays already HostBuffers): each pointer argument becomes a
        bounds-checked buffer named after its parameter."""
        n = max(1, len(self.params))
        slots = (ctypes.c_uint64 * n)()
        bufs = (_lib._HostBuffer * n)()
        n_bufs = 0
        index = {name: i for i, name in enumerate(self.arg_names)}
        maps = []   # keeps the tensor maps' bytes (and the scratch) alive through the run
        for slot, p in enumerate(self.params):
            if p.part == _lib.PART_SCRATCH:
                size = _lib.lib.tric_kernel_scratch_bytes(self._handle) * gx * gy * gz
                raw = ctypes.create_string_buffer(size + 128)
                maps.append(raw)
                slots[slot] = (ctypes.addressof(raw) + 127) // 128 * 128
                bufs[n_bufs] = _lib._HostBuffer(slots[slot], size, b"tric_scratch")
                n_bufs += 1
                continue
            a = p.value(b[index[p.name]])
            if p.kind == _lib.PARAM_TENSORMAP:
                enc = _TensorMapEncoder(self._handle, slot, interp=True)
                maps.append(enc)
                slots[slot] = enc(a)
                bufs[n_bufs] = _lib._HostBuffer(enc.address, _lib.TMAP_BYTES, (p.name + ".tmap").encode())
                n_bufs += 1
            elif p.kind == _lib.PARAM_POINTER:
                if not isinstance(a, HostBuffer):
                    raise TypeError("tric: TRIC_INTERPRET=1: parameter %s takes a host array (a numpy array, a "
                                    "CPU tensor or a writable buffer), not %s" % (p.name, type(a).__name__))
                slots[slot] = a.address
                bufs[n_bufs] = _lib._HostBuffer(a.address, a.nbytes, p.name.encode(), a.read_only)
                n_bufs += 1
            elif p.kind == _lib.PARAM_INT:
                slots[slot] = int(a) & 0xFFFFFFFFFFFFFFFF
            elif p.type == "fp32":
                slots[slot] = struct.unpack("<I", struct.pack("<f", a))[0]
            elif p.type == "fp64":
                slots[slot] = struct.unpack("<Q", struct.pack("<d", a))[0]
            else:
                raise TypeError("tric: cannot pass a %s scalar from Python (parameter %s)" % (p.type, p.name))
        err = ctypes.c_void_p()
        st = _lib.lib.tric_interpret_print(self._handle, gx, gy, gz, slots, n_bufs, bufs, _PRINT_TO_STDOUT, None,
                                           ctypes.byref(err))
        if st:
            _lib.raise_status(st, err)

    def __getitem__(self, grid):
        def runner(*args, stream=None):
            gx, gy, gz = normalize_grid(grid)
            if gx and gy and gz:
                if interpreting():
                    self._interpret(gx, gy, gz, [host_arg(a) for a in args])
                else:
                    self._launch(gx, gy, gz, stream, args)
        return runner


def _print_to_stdout(text, length, user):
    """What a kernel prints under TRIC_INTERPRET=1 goes to sys.stdout (so
    that redirection and capture see it, unlike the C library's stdout)."""
    sys.stdout.write(ctypes.string_at(text, length).decode("utf-8", "replace"))


_PRINT_TO_STDOUT = _lib.PRINT_FN(_print_to_stdout)


def debug_default():
    """Triton's TRITON_DEBUG=1 (or TRIC_DEBUG=1): kernels are compiled with
    their device assertions (read at each compile)."""
    if _ENV is not None:
        return _ENV.get(b"TRITON_DEBUG") == b"1" or _ENV.get(b"TRIC_DEBUG") == b"1"
    return os.environ.get("TRITON_DEBUG") == "1" or os.environ.get("TRIC_DEBUG") == "1"


def normalize_grid(grid):
    """(gx, gy, gz) from a tuple of one to three dims (missing ones are 1)."""
    n = len(grid)
    if n == 0 or n > 3:
        raise ValueError("tric: a grid has one to three dimensions, not %d" % n)
    gx = int(grid[0])
    gy = int(grid[1]) if n > 1 else 1
    gz = int(grid[2]) if n > 2 else 1
    if gx < 0 or gy < 0 or gz < 0:
        raise ValueError("tric: grid dimensions must not be negative: %r" % (tuple(grid),))
    if gx > 0x7FFFFFFF or gy > 65535 or gz > 65535:
        raise OverflowError("tric: grid %r is larger than CUDA allows (x < 2^31, y and z < 65536)" % (tuple(grid),))
    return gx, gy, gz


# ---- interpreter mode (TRIC_INTERPRET=1) ----

# os.environ keeps its contents in _data (bytes keys on POSIX) and updates it
# on every assignment: reading that dict costs ~0.05 us, os.environ.get ~0.5,
# which a launch would otherwise pay each time.
_ENV = getattr(os.environ, "_data", None)
if not isinstance(_ENV, dict) or any(not isinstance(k, bytes) for k in list(_ENV)[:1]):
    _ENV = None


def interpreting():
    """True when launches run on the CPU interpreter: TRIC_INTERPRET=1, or
    Triton's TRITON_INTERPRET=1 (read at each launch)."""
    if _ENV is not None:
        return _ENV.get(b"TRIC_INTERPRET") == b"1" or _ENV.get(b"TRITON_INTERPRET") == b"1"
    return os.environ.get("TRIC_INTERPRET") == "1" or os.environ.get("TRITON_INTERPRET") == "1"


class HostBuffer:
    """A host array as a kernel argument under TRIC_INTERPRET=1: a dtype
    (what specializes the kernel), data_ptr() and nbytes (the bounds). It
    holds the array, and any export of its buffer, for as long as it lives."""

    def __init__(self, obj, dtype, address, nbytes, keep=None, read_only=False):
        self.obj, self.dtype, self.address, self.nbytes, self._keep = obj, dtype, address, nbytes, keep
        self.read_only = read_only   # a store into it is an InterpreterError, not a write

    def data_ptr(self):
        return self.address

    def __repr__(self):
        return "HostBuffer(%s, %d bytes at 0x%x)" % (self.dtype, self.nbytes, self.address)


_BUFFER_INT_FORMATS = {"b": "i", "h": "i", "i": "i", "l": "i", "q": "i", "n": "i",
                       "B": "u", "H": "u", "I": "u", "L": "u", "Q": "u", "N": "u"}
_BUFFER_FLOAT_FORMATS = {"e": "fp16", "f": "fp32", "d": "fp64", "?": "i1"}


def _buffer_sig(mv):
    """The signature type of a memoryview's elements ("fp32", "i64", ...)."""
    fmt = mv.format.lstrip("@=<>!")
    if fmt in _BUFFER_FLOAT_FORMATS:
        return _BUFFER_FLOAT_FORMATS[fmt]
    if fmt in _BUFFER_INT_FORMATS:
        return "%s%d" % (_BUFFER_INT_FORMATS[fmt], 8 * mv.itemsize)
    raise TypeError("tric: TRIC_INTERPRET=1: cannot pass a buffer of format %r to a kernel" % mv.format)


def _torch_host_buffer(a):
    if a.device.type != "cpu":
        raise ValueError("tric: TRIC_INTERPRET=1 runs kernels on the CPU, but a tensor is on %s "
                         "(move it with .cpu())" % a.device)
    return HostBuffer(a, a.dtype, a.data_ptr(), a.numel() * a.element_size())


def _array_host_buffer(a):
    ai = a.__array_interface__
    if ai.get("strides") is not None and not a.flags["C_CONTIGUOUS"]:
        raise ValueError("tric: TRIC_INTERPRET=1: pass contiguous arrays (np.ascontiguousarray)")
    # a read-only array (writeable=False, np.memmap opened "r") is readable
    # by the kernel; a store into it is an error, where writing would
    # change what the program holds read-only, or fault on a mapping
    return HostBuffer(a, _typestr_sig(ai["typestr"]), ai["data"][0], a.nbytes, read_only=bool(ai["data"][1]))


def _protocol_host_buffer(a):
    """An object with the buffer protocol (array.array, bytearray, ...)."""
    try:
        mv = memoryview(a)
    except TypeError:
        return None
    if not mv.c_contiguous:
        raise ValueError("tric: TRIC_INTERPRET=1: pass contiguous buffers")
    if mv.readonly:
        raise TypeError("tric: TRIC_INTERPRET=1: a %s is read-only; kernels take writable buffers"
                        % type(a).__name__)
    raw = (ctypes.c_char * mv.nbytes).from_buffer(a)
    return HostBuffer(a, _buffer_sig(mv), ctypes.addressof(raw), mv.nbytes, keep=raw)


def host_arg(a):
    """a as a HostBuffer when it is a host array; anything else unchanged."""
    if a is None or isinstance(a, (numbers.Number, str, tl.constexpr, tl.dtype, HostBuffer)) or is_dtype_like(a):
        return a
    if type(a).__module__.startswith("torch") and hasattr(a, "data_ptr"):
        return _torch_host_buffer(a)
    if hasattr(a, "__array_interface__") and hasattr(a, "flags"):
        return _array_host_buffer(a)
    if hasattr(a, "data_ptr") or hasattr(a, "__cuda_array_interface__"):
        return a
    if type(a) is tuple:   # a tuple argument: its items (torch.Size holds ints only)
        return tuple(host_arg(x) for x in a)
    if _is_tensor_descriptor(a):   # the same descriptor over a HostBuffer
        d = copy.copy(a)
        d.base = host_arg(a.base)
        return d
    buf = _protocol_host_buffer(a)
    return a if buf is None else buf


def _is_constexpr_annotation(ann):
    if ann is inspect.Parameter.empty:
        return False
    name = ann if isinstance(ann, str) else getattr(ann, "__name__", str(ann))
    return "constexpr" in name


class JitParam:
    """One parameter of a @jit function (Triton's KernelParam): its place
    (num), name, whether it is tl.constexpr, its annotation and default."""

    def __init__(self, num, param, is_constexpr, do_not_specialize=False, do_not_specialize_on_alignment=False):
        self.num, self.name, self.is_constexpr = num, param.name, is_constexpr
        self.annotation, self.default = param.annotation, param.default
        self.do_not_specialize = do_not_specialize
        self.do_not_specialize_on_alignment = do_not_specialize_on_alignment

    def __repr__(self):
        return "JitParam(%d, %r%s)" % (self.num, self.name, ", constexpr" if self.is_constexpr else "")


class KernelInterface:
    """kernel[grid](*args, **kwargs) for every kernel object."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)


class JITFunction(KernelInterface):
    """A @jit function. kernel[grid](*args, num_warps=, num_stages=)
    compiles the arguments' specialization once and launches it."""

    def __init__(self, fn, do_not_specialize=None, do_not_specialize_on_alignment=None, debug=None,
                 noinline=None, repr=None, launch_metadata=None):
        if not inspect.isfunction(fn):
            raise TypeError("tric.jit: expected a function, got %r" % (fn,))
        # noinline=True asks Triton for a real call; tric inlines every call,
        # which computes the same
        self.noinline = bool(noinline)
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__module__ = fn.__module__
        self.__doc__ = fn.__doc__
        self.__globals__ = fn.__globals__
        sig = inspect.signature(fn)
        self.signature = sig
        for p in sig.parameters.values():
            if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                raise TypeError("tric.jit: kernel '%s': *args, **kwargs and keyword-only parameters are not "
                                "supported" % fn.__name__)
        self.arg_names = list(sig.parameters)
        self.constexprs = [i for i, p in enumerate(sig.parameters.values()) if _is_constexpr_annotation(p.annotation)]
        self.do_not_specialize = self._indices(do_not_specialize, "do_not_specialize")
        self.do_not_specialize_on_alignment = self._indices(do_not_specialize_on_alignment,
                                                            "do_not_specialize_on_alignment")
        self.params = [JitParam(i, p, i in self.constexprs, i in self.do_not_specialize,
                                i in self.do_not_specialize_on_alignment)
                       for i, p in enumerate(sig.parameters.values())]
        try:   # the source as written and its first line, kept (compiles, and tools such as
            lines, self._src_line = inspect.getsourcelines(fn)   # Inductor after dropping fn, read it)
            self._src = "".join(lines)
        except (OSError, TypeError):
            self._src, self._src_line = None, 0
        self._src_replaced = False
        # what Triton's JITFunction also carries for tools that pickle kernels
        # (Inductor resets and restores these); tric keeps its own record of
        # the globals a compile used in _used_globals
        self.used_global_vals = {}
        self._hash_lock = threading.RLock()
        # debug=True compiles tl.device_assert / assert into the GPU code (the
        # interpreter always checks them); None: TRITON_DEBUG=1 decides
        self.debug = debug
        # launch_metadata(grid, kernel, args) -> dict: what Triton's launch hooks
        # (profilers) report about a launch (CompiledKernel.launch_metadata adds it)
        self.launch_metadata = launch_metadata
        self._repr = repr   # repr(specialization) -> the kernel's name (its PTX .entry)
        self.cache = {}   # (specialization, CompileOptions) -> CompiledKernel
        self._units = None   # (units text, kernel name, used globals): built at the first compile
        self._used_globals = ()
        self._bind = self._make_binder()

    def _indices(self, names, what):
        out = []
        for a in names or ():
            if isinstance(a, str):
                if a not in self.arg_names:
                    raise ValueError("tric.jit: %s names '%s', which is not a parameter of '%s'"
                                     % (what, a, self.__name__))
                out.append(self.arg_names.index(a))
            else:
                if not 0 <= a < len(self.arg_names):
                    raise ValueError("tric.jit: %s index %d is out of range for '%s'" % (what, a, self.__name__))
                out.append(a)
        return out

    def _make_binder(self):
        """bind(*args, **kwargs) -> (arguments in parameter order,
        specialization key, the other keyword arguments), as one generated
        function with the kernel's own parameter list: Python does the
        binding (and its errors) itself."""
        env = {"_s0": _SPEC[0], "_s1": _SPEC[1], "_s2": _SPEC[2], "_c": _constexpr_key}
        decl, keys = [], []
        for i, p in enumerate(self.params):
            if p.default is not inspect.Parameter.empty:
                env["_d%d" % i] = p.default
                decl.append("%s=_d%d" % (p.name, i))
            else:
                decl.append(p.name)
            mode = 2 if i in self.do_not_specialize else 1 if i in self.do_not_specialize_on_alignment else 0
            if i in self.constexprs:
                keys.append("_c(%s)" % p.name)
            elif _annotated_sig(p.annotation):
                env["_a%d" % i] = _annotated_spec(_annotated_sig(p.annotation), mode)
                keys.append("_a%d(%s)" % (i, p.name))
            elif _is_const_annotation(p.annotation):
                env["_a%d" % i] = _const_spec(_SPEC[mode])
                keys.append("_a%d(%s)" % (i, p.name))
            else:
                keys.append("_s%d(%s)" % (mode, p.name))
        names = "".join(p.name + ", " for p in self.params)
        text = "def bind(%s**_options):\n    return (%s), (%s), _options\n" % (
            "".join(d + ", " for d in decl), names, "".join(k + ", " for k in keys))
        exec(compile(text, "<tric binder %s>" % self.__name__, "exec"), env)
        return env["bind"]

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Cannot call @triton.jit'd outside of the scope of a kernel")

    def __repr__(self):
        return "JITFunction(%s:%s)" % (self.__module__, self.__qualname__)

    @property
    def src(self):
        return self._src if self._src is not None else inspect.getsource(self.fn)

    def _unsafe_update_src(self, new_src):
        """Compile from new_src (a def, as Triton's tests rewrite kernels)
        instead of the function's source; compiled kernels are dropped."""
        self._src, self._src_replaced = new_src, True
        self._units, self._used_globals, self.cache = None, (), {}

    @property
    def cache_key(self):
        """A hash of what the kernel compiles from: its source and those of
        the @jit functions it reaches, and the values of their names."""
        return hashlib.sha256(self._kernel_units()[0].encode("utf-8")).hexdigest()

    def _kernel_units(self):
        """(units text, kernel name, used globals), built at the first need."""
        if self._units is None:
            self._units = units.kernel_units(self)
            self._used_globals = self._units[2]
        return self._units

    def _debug(self):
        return bool(self.debug) if self.debug is not None else debug_default()

    def _options(self, extra):
        """The launch's CompileOptions from its keyword options (Triton's
        names), defaults from knobs and the environment."""
        num_warps, num_stages, debug, num_ctas = DEFAULT_NUM_WARPS, DEFAULT_NUM_STAGES, None, 1
        maxnreg, fp_fusion, arch, cooperative = None, None, None, False
        for k, v in extra.items():
            if k == "num_warps":
                # Triton's own check and message (its tests match them)
                assert isinstance(v, int) and v > 0 and (v & (v - 1)) == 0, "num_warps must be a power of 2"
                num_warps = v
            elif k == "num_stages":
                num_stages = v
            elif k == "debug":
                debug = v
            elif k == "num_ctas":
                # Triton spreads a program over a cluster of num_ctas CTAs
                # (sm_90+); tric runs each program as one CTA, which computes
                # the same, so num_ctas is a hint tric checks and then ignores
                if not isinstance(v, int) or isinstance(v, bool) or v < 1 or v > 16 or v & (v - 1):
                    raise ValueError("tric: num_ctas=%r: a power of two from 1 to 16" % (v,))
                num_ctas = v
            elif k == "maxnreg":
                if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not 16 <= v <= 255):
                    raise ValueError("tric: maxnreg=%r: registers per thread, from 16 to 255" % (v,))
                maxnreg = v
            elif k == "enable_fp_fusion":
                fp_fusion = bool(v)
            elif k == "arch":
                arch = _arch_option(v)
            elif k in ("sanitize_overflow", "launch_pdl"):
                # overflow checks are Triton's debug-mode instrumentation, and
                # programmatic dependent launch only lets the next kernel start
                # early: neither changes what a kernel computes
                pass
            elif k == "enable_reflect_ftz":
                if v:   # Triton's default flushes denormal results of its approximate math to zero
                    raise NotImplementedError("tric: enable_reflect_ftz=True is not supported: tric's approximate "
                                              "math keeps denormals (enable_reflect_ftz=False)")
            elif k == "launch_cooperative_grid":
                cooperative = bool(v)   # every program resident at once (cuLaunchCooperativeKernel)
            else:
                raise KeyError("Keyword argument %s was specified but unrecognised" % k)
        if fp_fusion is None:
            fp_fusion = knobs.language.default_fp_fusion
        return CompileOptions(num_warps, num_stages, bool(debug) if debug is not None else self._debug(), num_ctas,
                              maxnreg, fp_fusion, arch or _arch_option(knobs.runtime.override_arch), cooperative)

    def _default_options(self):
        """The options of a launch that gives none: knobs and the
        environment, read at each launch as Triton does."""
        fusion, arch = knobs.language.default_fp_fusion, knobs.runtime.override_arch
        key = (self._debug(), fusion, arch)
        opts = _DEFAULT_OPTIONS.get(key)
        if opts is None:
            opts = _DEFAULT_OPTIONS[key] = CompileOptions(DEFAULT_NUM_WARPS, DEFAULT_NUM_STAGES, key[0], 1, None,
                                                          fusion, _arch_option(arch), False)
        return opts

    def _entry_name(self, bound, signature):
        """jit(repr=f): f(specialization) names the kernel, as in Triton;
        the specialization has .signature (parameter -> type, "constexpr"
        for values) and .constants (parameter -> value)."""
        sig, constants = {}, {}
        for name, entry, value in zip(self.arg_names, _split_signature(signature), bound):
            ty = entry.split(":")[0] if _SIG_TYPE.match(entry) else "constexpr"
            if entry.endswith(":1") and entry[:1] in "iu":
                ty, value = "constexpr", 1
            sig[name] = ty
            if ty == "constexpr":
                constants[name] = value.value if _is_constexpr(value) else value
        return self._entry_name_of(_Specialization(constants, sig))

    def _entry_name_of(self, spec):
        name = self.repr(spec)
        return "".join(ch if ch.isalnum() or ch in "_$" else "_" for ch in name) or "_"

    def repr(self, specialization):
        """The kernel's name for a specialization: jit(repr=f)'s f, else the function's."""
        return self.__name__ if self._repr is None else str(self._repr(specialization))

    def _compile(self, bound, spec, o):
        parts = []
        for i, name in enumerate(self.arg_names):
            parts.append(_spell_constexpr(name, bound[i]) if i in self.constexprs else spec[i])
        signature = ", ".join(parts)
        return self._compile_signature(signature, o, self._entry_name(bound, signature) if self._repr else None)

    def _compile_signature(self, signature, o, entry=None):
        """The kernel specialized by a signature (tric's spelling) with
        CompileOptions o; entry names its PTX .entry (None: the kernel's)."""
        text, name, _ = self._kernel_units()
        handle = _compile_handle(text, name, signature, o, entry)
        log = _lib.lib.tric_kernel_log(handle)
        if log:   # tl.static_print's notes, printed at compile time as in Triton
            sys.stdout.write(log.decode("utf-8", "replace"))
        return CompiledKernel(handle, self.arg_names, signature, o, self.launch_metadata,
                              (text, name, signature, o, entry))

    def __getstate__(self):
        """What pickling keeps (tools move kernels between processes): not
        the generated binder, compiled kernels, lock, or what the last
        compile read from the program, which are made again."""
        state = dict(self.__dict__)
        for k in ("_bind", "cache", "_hash_lock", "_units", "_used_globals", "__globals__"):
            state.pop(k, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__globals__ = self.fn.__globals__ if self.fn is not None else None
        self.cache, self._units, self._used_globals = {}, None, ()
        self._hash_lock = threading.RLock()
        self._bind = self._make_binder()

    def run(self, *args, grid, warmup=False, **kwargs):
        interpret = not warmup and interpreting()
        if interpreting():   # host arrays -> HostBuffers, which specialize as tensors do (warmup too)
            args = [host_arg(a) for a in args]
            kwargs = {k: host_arg(v) for k, v in kwargs.items()}
        bound, spec, extra = self._bind(*args, **kwargs)
        opts = self._options(extra) if extra else self._default_options()
        key = (spec, opts)
        kernel = self.cache.get(key)
        if kernel is None:
            kernel = self.cache[key] = self._compile(bound, spec, opts)
        if self._used_globals:
            self._check_globals()
        num_ctas = opts.num_ctas
        if num_ctas > 1 and int(kernel.metadata.arch[3:].rstrip("af")) < 90:
            raise ValueError("tric: num_ctas=%d needs sm_90 or later (clusters); the kernel is for %s"
                             % (num_ctas, kernel.metadata.arch))
        if callable(grid):
            grid = grid(dict(zip(self.arg_names, bound)))
        gx, gy, gz = normalize_grid(grid)
        if interpret and gx and gy and gz:
            kernel._interpret(gx, gy, gz, bound)
        elif not warmup and gx and gy and gz:
            enter, leave = _RUNTIME_KNOBS.launch_enter_hook, _RUNTIME_KNOBS.launch_exit_hook
            if enter is None and leave is None:
                kernel._launch(gx, gy, gz, None, bound, num_ctas)
            else:
                kernel.run(gx, gy, gz, None, kernel.function, kernel.packed_metadata,
                           kernel.launch_metadata((gx, gy, gz), None, *bound), enter, leave, *bound)
        return kernel

    def _check_globals(self):
        """As Triton: a global the kernel was compiled with that the
        program has since rebound is an error, not a stale kernel."""
        for name, g, value in self._used_globals:
            now = g.get(name, _ABSENT)
            if now is not value and now != value:
                raise RuntimeError("Global variable %s has changed since we compiled this kernel, from %r to %r"
                                   % (name, value, now))

    def warmup(self, *args, grid, **kwargs):
        """Compiles the specialization these arguments select without
        launching; a tensor argument may be given as its dtype (torch.float16,
        tl.float16, a numpy dtype, or the signature's "*fp16")."""
        args = list(args)
        for i, name in enumerate(self.arg_names):
            if i in self.constexprs:
                continue
            if i < len(args) and _warmup_dtype(args[i]) is not None:
                args[i] = MockTensor(_warmup_dtype(args[i]))
            elif name in kwargs and _warmup_dtype(kwargs[name]) is not None:
                kwargs[name] = MockTensor(_warmup_dtype(kwargs[name]))
        return self.run(*args, grid=grid, warmup=True, **kwargs)


def jit(fn=None, *, do_not_specialize=None, do_not_specialize_on_alignment=None, debug=None, noinline=None,
        repr=None, launch_metadata=None):
    """@jit or @jit(do_not_specialize=[...]): a kernel."""
    def decorate(f):
        return JITFunction(f, do_not_specialize=do_not_specialize,
                           do_not_specialize_on_alignment=do_not_specialize_on_alignment, debug=debug,
                           noinline=noinline, repr=repr, launch_metadata=launch_metadata)
    return decorate(fn) if fn is not None else decorate
