"""tric.language: what `import triton.language as tl` gives host code.

Kernels are never run by Python: tric compiles their source. So here are
only the objects host code touches (dtypes, constexpr, PropagateNan) and, for
every tl function, an object that says it can only be used inside a @jit
function when called from plain Python, as Triton does.
"""


class constexpr:
    """A compile-time value: `BLOCK: tl.constexpr` marks a parameter whose
    value specializes the kernel; tl.constexpr(3) wraps a value."""

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return "constexpr[%r]" % (self.value,)

    def __str__(self):
        return str(self.value)

    def __hash__(self):
        return hash(self.value)

    def __eq__(self, other):
        return self.value == _unwrap(other)

    def __ne__(self, other):
        return self.value != _unwrap(other)

    def __bool__(self):
        return bool(self.value)

    def __index__(self):
        return self.value.__index__()

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)


def _unwrap(v):
    return v.value if isinstance(v, constexpr) else v


def _binary(op):
    def method(self, other):
        return constexpr(op(self.value, _unwrap(other)))
    return method


def _reflected(op):
    def method(self, other):
        return constexpr(op(_unwrap(other), self.value))
    return method


def _install_constexpr_ops():
    import operator
    for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and", "or",
                 "xor", "lt", "le", "gt", "ge"):
        op = getattr(operator, name + "_" if name in ("and", "or") else name)
        setattr(constexpr, "__%s__" % name, _binary(op))
        if name not in ("lt", "le", "gt", "ge"):
            setattr(constexpr, "__r%s__" % name, _reflected(op))
    constexpr.__neg__ = lambda self: constexpr(-self.value)
    constexpr.__pos__ = lambda self: constexpr(+self.value)
    constexpr.__invert__ = lambda self: constexpr(~self.value)


_install_constexpr_ops()


class dtype:
    """An element type. str(tl.float32) == "fp32" and tl.int32.name ==
    "int32", as in Triton; primitive_bitwidth is its size in bits."""

    SINT_TYPES = ("int8", "int16", "int32", "int64")
    UINT_TYPES = ("int1", "uint8", "uint16", "uint32", "uint64")
    FP_TYPES = ("fp8e4nv", "fp8e5", "fp16", "bf16", "fp32", "fp64")

    # Triton name -> (bits, tric signature spelling)
    _INFO = {
        "int1": (1, "i1"), "int8": (8, "i8"), "int16": (16, "i16"), "int32": (32, "i32"), "int64": (64, "i64"),
        "uint8": (8, "u8"), "uint16": (16, "u16"), "uint32": (32, "u32"), "uint64": (64, "u64"),
        "fp8e4nv": (8, "fp8e4nv"), "fp8e5": (8, "fp8e5"), "fp16": (16, "fp16"), "bf16": (16, "bf16"),
        "fp32": (32, "fp32"), "fp64": (64, "fp64"),
        # Triton's types for other backends and its void: importable, refused by the compiler
        "fp8e4b15": (8, "fp8e4b15"), "fp8e4b8": (8, "fp8e4b8"), "fp8e5b16": (8, "fp8e5b16"), "void": (0, "void"),
    }

    def __init__(self, name):
        if name not in self._INFO:
            raise ValueError("unknown dtype %r" % (name,))
        self.name = name
        self.primitive_bitwidth, self.sig = self._INFO[name]

    def __str__(self):
        return self.name

    def __repr__(self):
        return "tric.language.%s" % self.name

    def __eq__(self, other):
        return isinstance(other, dtype) and type(other) is type(self) and other.name == self.name

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((type(self), self.name))

    def is_floating(self):
        return self.name in self.FP_TYPES

    def is_int(self):
        return self.name in self.SINT_TYPES or self.name in self.UINT_TYPES

    def is_int_signed(self):
        return self.name in self.SINT_TYPES

    def is_int_unsigned(self):
        return self.name in self.UINT_TYPES

    def is_bool(self):
        return self.name == "int1"

    def is_fp8(self):
        return self.name in ("fp8e4nv", "fp8e5")

    def is_fp16(self):
        return self.name == "fp16"

    def is_bf16(self):
        return self.name == "bf16"

    def is_fp32(self):
        return self.name == "fp32"

    def is_fp64(self):
        return self.name == "fp64"

    def is_ptr(self):
        return False

    @property
    def scalar(self):
        return self


class pointer_type(dtype):
    """tl.pointer_type(tl.float32): the type of a pointer argument."""

    def __init__(self, element_ty):
        if not isinstance(element_ty, dtype):
            raise TypeError("pointer_type: element_ty must be a tl dtype, not %r" % (element_ty,))
        self.element_ty = element_ty
        self.name = "pointer<%s>" % element_ty
        self.primitive_bitwidth = 64
        self.sig = "*" + element_ty.sig

    def __eq__(self, other):
        return isinstance(other, pointer_type) and other.element_ty == self.element_ty

    def __hash__(self):
        return hash(("pointer", self.element_ty))

    def is_ptr(self):
        return True


int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float8e4nv = dtype("fp8e4nv")
float8e5 = dtype("fp8e5")
float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
float64 = dtype("fp64")
float8e4b15 = dtype("fp8e4b15")
float8e4b8 = dtype("fp8e4b8")
float8e5b16 = dtype("fp8e5b16")
void = dtype("void")

TRITON_MAX_TENSOR_NUMEL = 1048576


class PropagateNan:
    NONE = 0x0000
    ALL = 0xFFFF


pi32_t = pointer_type(int32)


class const:
    """`x_ptr: tl.const` marks a pointer parameter the kernel never stores
    through (signature "*k..."): a store through it is a compile error."""


class constexpr_type:
    """The type of a constexpr value inside a kernel (for isinstance)."""


class block_type:
    """The type of a tile inside a kernel (for annotations and isinstance)."""


class tuple:
    """The type of tuples inside a kernel (for annotations and isinstance)."""


class slice:
    """The type of slices inside a kernel (for annotations and isinstance)."""


class tensor:
    """The type of values inside a kernel (for annotations and isinstance);
    host code never holds one."""

    def __init__(self, *args, **kwargs):
        raise ValueError("tl.tensor can only be created inside a @jit function")


class tensor_descriptor:
    """The type of tl.make_tensor_descriptor's value inside a kernel (for
    annotations and isinstance)."""

    def __init__(self, *args, **kwargs):
        raise ValueError("tl.tensor_descriptor can only be created inside a @jit function")


class _JitOnly:
    """A tl function seen from plain Python: calling it is a mistake. path
    is where the compiler finds it ("triton.language.arange"), which is what
    a kernel that binds it by another name (`from triton.language.extra.
    libdevice import rsqrt`) is compiled with."""

    def __init__(self, qualname, path):
        self.__name__ = qualname.rsplit(".", 1)[-1]
        self.__qualname__ = qualname
        self.path = path

    def __call__(self, *args, **kwargs):
        raise ValueError("%s can only be called inside a @jit function" % self.__qualname__)

    def __repr__(self):
        return "<%s: only inside a @jit function>" % self.__qualname__


# Every tl function of Triton's language that kernels use (tric compiles the
# ones its builtins table has and names the others as not supported yet).
_FUNCTIONS = (
    "program_id", "num_programs", "arange", "zeros", "zeros_like", "full", "load", "store", "where", "minimum",
    "maximum", "cast", "cdiv", "exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "abs", "sigmoid", "fdiv",
    "div_rn", "multiple_of", "max_contiguous", "max_constancy", "assume", "static_assert", "static_print",
    "static_range", "range", "dot", "dot_scaled", "sum", "max", "min", "argmax", "argmin", "reduce", "xor_sum",
    "reduce_or", "associative_scan", "cumsum", "cumprod", "sort", "topk", "flip", "histogram", "gather", "reshape",
    "view", "trans", "permute", "broadcast", "broadcast_to", "expand_dims", "join", "split", "cat", "ravel",
    "interleave", "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor", "atomic_xchg",
    "atomic_cas", "debug_barrier", "device_print", "device_assert", "make_block_ptr", "advance",
    "make_tensor_descriptor", "inline_asm_elementwise", "rand", "randn", "randint", "randint4x", "rand4x", "randn4x",
    "philox", "softmax", "clamp", "fma", "umulhi", "cos", "sin", "erf", "floor", "ceil", "swizzle2d",
    "map_elementwise", "full_like", "load_tensor_descriptor", "store_tensor_descriptor", "add", "sub", "mul",
    "atomic_poll", "bitonic_merge", "condition", "pair_uniform_to_normal", "philox_impl", "squeeze", "unsqueeze",
    "to_tensor", "uint_to_uniform_float", "expect_zero", "target_info",
)

for _name in _FUNCTIONS:
    globals()[_name] = _JitOnly("tl." + _name, "triton.language." + _name)
del _name

from . import math  # noqa: E402  (tl.math, after the names it shares)
from . import extra  # noqa: E402  (tl.extra.cuda.libdevice)

__all__ = ["constexpr", "dtype", "pointer_type", "tensor", "tensor_descriptor", "const", "constexpr_type",
           "block_type", "tuple", "slice", "pi32_t", "void", "float8e4b15", "float8e4b8", "float8e5b16",
           "PropagateNan", "TRITON_MAX_TENSOR_NUMEL", "math",
           "int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float8e4nv",
           "float8e5", "float16", "bfloat16", "float32", "float64"] + sorted(set(_FUNCTIONS))
from . import core  # noqa: E402,F401  (triton.language.core: the same names)
