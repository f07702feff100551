"""triton.compiler.compiler over tric.

    src = ASTSource(fn, {"x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                    constexprs={"BLOCK": 1024}, attrs={(0,): [["tt.divisibility", 16]]})
    k = compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    k.run(gx, gy, gz, stream, k.function, k.packed_metadata, None, None, None, x, n, 1024)

The signature names every parameter with Triton's type spellings
("constexpr" for values); constexprs (by name or by (index,), Triton's
keys) give values for any parameter, which are baked in (a value for a
parameter that is not tl.constexpr specializes the kernel to it, as
Inductor's equal-to-1 sizes do); attrs' tt.divisibility 16 is the
signature's ":16". Options are the launch options kernel[grid] takes.
"""
import hashlib
import os

from .. import _lib
from ..jit import CompiledKernel, JITFunction, _Specialization, _spell_constexpr

__all__ = ["ASTSource", "CompiledKernel", "compile", "make_backend", "triton_key"]


class ASTSource:
    """A @jit function with its specialization (Triton's ASTSource)."""

    def __init__(self, fn, signature, constexprs=None, attrs=None):
        if not isinstance(fn, JITFunction):
            raise TypeError("ASTSource: fn must be a @triton.jit function, not %r" % (fn,))
        self.fn = fn
        self.name = fn.__name__
        self.ext = "ttir"
        for k in signature:
            if not isinstance(k, str):
                raise TypeError("Signature keys must be string")
        self.signature = dict(signature)
        self.constants = {}
        for k, v in (constexprs or {}).items():
            self.constants[(fn.arg_names.index(k),) if isinstance(k, str) else tuple(k)] = v
        self.attrs = dict(attrs or {})

    def hash(self):
        key = "%s-%s-%s-%s" % (self.fn.src, sorted(self.attrs.items()), sorted(self.signature.items()),
                               sorted((k, repr(v)) for k, v in self.constants.items()))
        return hashlib.sha256(key.encode("utf-8")).hexdigest()

    def parse_options(self):
        return {}

    def tric_signature(self):
        """The kernel's signature in tric's spelling, and the
        specialization jit(repr=...) is shown."""
        fn = self.fn
        unknown = [k for k in self.signature if k not in fn.arg_names]
        if unknown:
            raise KeyError("ASTSource: '%s' is not a parameter of %s" % (unknown[0], fn.__name__))
        entries, sig, constants = [], {}, {}
        for i, name in enumerate(fn.arg_names):
            if (i,) in self.constants:
                value = self.constants[(i,)]
                entries.append(_spell_constexpr(name, value))
                sig[name], constants[name] = "constexpr", value
                continue
            ty = self.signature.get(name)
            if ty is None or ty == "constexpr":
                raise ValueError("ASTSource: parameter '%s' of %s needs %s" % (
                    name, fn.__name__, "a value in constexprs" if ty else "a type in the signature"))
            sig[name] = ty
            divisible = any(a and a[0] == "tt.divisibility" and a[1] % 16 == 0 for a in self.attrs.get((i,), ()))
            entries.append(ty + (":16" if divisible and not ty.startswith("tensordesc") else ""))
        return ", ".join(entries), _Specialization(constants, sig)


def _arch_of(target):
    """The arch option for a GPUTarget: None (the device's own, sm_90a on
    Hopper) when the device has that compute capability, else the target's
    (the options spell it as Triton does)."""
    if target is None:
        return None
    if getattr(target, "backend", "cuda") != "cuda":
        raise ValueError("tric compiles for CUDA targets, not %r" % (target.backend,))
    arch = target.arch
    if isinstance(arch, str):
        return arch
    from ..runtime.driver import driver
    try:
        if driver.active.get_current_target().arch == arch:
            return None
    except _lib.DriverError:
        pass
    return arch


def compile(src, target=None, options=None, _env_vars=None):
    """Compiles src (an ASTSource) for target (default: the current
    device) with Triton's options; returns a CompiledKernel whose run()
    launches it."""
    if not isinstance(src, ASTSource):
        raise TypeError("tric compiles @triton.jit functions (ASTSource), not %s" % type(src).__name__)
    opts = dict(options or {})
    if "arch" not in opts and target is not None:
        opts["arch"] = _arch_of(target)
    fn = src.fn
    o = fn._options(opts) if opts else fn._default_options()
    signature, spec = src.tric_signature()
    entry = fn._entry_name_of(spec) if fn._repr else None
    kernel = fn._compile_signature(signature, o, entry)
    kernel.src = src
    kernel.hash = hashlib.sha256((src.hash() + "-" + repr(o)).encode()).hexdigest()
    return kernel


class _Options:
    """What a backend's parse_options gives: Triton's CUDA option names and
    their defaults in tric."""

    def __init__(self, **kw):
        self.num_warps, self.num_ctas, self.num_stages, self.warp_size = 4, 1, 3, 32
        self.maxnreg, self.enable_fp_fusion, self.debug = None, True, False
        self.launch_cooperative_grid = self.launch_pdl = False
        self.__dict__.update(kw)


class CUDABackend:
    """make_backend(target): what compiles for target (its hash and option
    defaults)."""

    def __init__(self, target):
        self.target = target

    def hash(self):
        return "tric-%s-%s" % (_lib.version(), getattr(self.target, "arch", ""))

    def parse_options(self, options):
        return _Options(**dict(options))


def make_backend(target):
    return CUDABackend(target)


def triton_key():
    """What identifies this compiler in other tools' cache keys: tric's
    version and the build of libtric it loaded."""
    try:
        st = os.stat(_lib.path)
        build = "%d-%d" % (st.st_size, st.st_mtime_ns)
    except OSError:
        build = "?"
    return "tric-%s-%s-%s" % (_lib.version(), _lib.path, build)
