"""The Python package without a GPU: import, @jit, argument binding,
specialization keys, constexprs, the memory and disk caches, compile errors,
warmup, tric.language, cdiv / next_power_of_2, and launches failing with a
clear error where there is no driver."""
import linecache
import os
import re

import tric_testlib as T
from tric_testlib import check, check_eq, raises

import tric as triton
import tric.language as tl
from tric import language as tl2

ADD = '''import tric as triton
import tric.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr = 256):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit(do_not_specialize=["n"], do_not_specialize_on_alignment=[1])
def nospec_kernel(x_ptr, y_ptr, n, m, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < m)


@triton.jit
def cast_kernel(x_ptr, out_ptr, n, scale, flag, maybe, OUT: tl.constexpr, MODE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m) * scale
    if MODE == "double":
        x = x * 2
    if maybe is not None:
        x = x + maybe
    tl.store(out_ptr + offs, x.to(OUT), mask=m & (flag != 0))


@triton.jit
def typed_kernel(x_ptr, stride: tl.int64, scale: tl.float32, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * stride + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * scale)
'''

BAD = '''import tric
from tric import language as tl

@tric.jit
def bad_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, undefined_name)
'''


def test_import_and_language():
    check(tl is tl2, "tric.language is one module")
    check_eq(str(tl.float32), "fp32", "str(tl.float32)")
    check_eq(str(tl.int32), "int32", "str(tl.int32)")
    check_eq(str(tl.bfloat16), "bf16", "str(tl.bfloat16)")
    check_eq(tl.float16.primitive_bitwidth, 16, "float16 bits")
    check_eq(tl.int1.primitive_bitwidth, 1, "int1 bits")
    check_eq(tl.float8e4nv.primitive_bitwidth, 8, "fp8 bits")
    check(tl.float16.is_fp16() and tl.float16.is_floating() and not tl.float16.is_int(), "dtype predicates")
    check(tl.uint8.is_int_unsigned() and tl.int64.is_int_signed(), "signedness")
    check(tl.float32 == tl.float32 and tl.float32 != tl.float16, "dtype equality")
    check_eq({tl.float16: 1}[tl.float16], 1, "dtypes hash")
    check_eq(tl.PropagateNan.ALL, 0xFFFF, "PropagateNan.ALL")
    check_eq(tl.constexpr(3) + 4, tl.constexpr(7), "constexpr arithmetic")
    check_eq(int(tl.constexpr(5)), 5, "int(constexpr)")
    for fn, name in ((tl.load, "tl.load"), (tl.program_id, "tl.program_id"), (tl.math.exp, "tl.math.exp"),
                     (tl.dot, "tl.dot")):
        e = raises(ValueError, fn, 1)
        check_eq(str(e), "%s can only be called inside a @jit function" % name, name + " outside jit")
    check_eq(triton.cdiv(1000, 1024), 1, "cdiv")
    check_eq(triton.cdiv(2049, 1024), 3, "cdiv 3")
    check_eq([triton.next_power_of_2(n) for n in (0, 1, 2, 3, 5, 64, 65, 1000)], [0, 1, 2, 4, 8, 64, 128, 1024],
             "next_power_of_2")
    check(issubclass(triton.CompilationError, Exception), "CompilationError is an Exception")
    check(re.fullmatch(r"\d+\.\d+\.\d+\+tric\.\d+\.\d+\.\d+", triton.__version__) is not None, "version from libtric")


def test_decorator_and_binding():
    m = T.write_module(ADD)
    k = m.add_kernel
    check(isinstance(k, triton.JITFunction), "@jit gives a JITFunction")
    check_eq(k.arg_names, ["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"], "arg_names")
    check_eq(k.constexprs, [4], "constexprs")
    check_eq(m.nospec_kernel.do_not_specialize, [2], "do_not_specialize by name")
    check_eq(m.nospec_kernel.do_not_specialize_on_alignment, [1], "do_not_specialize_on_alignment by index")
    x = T.FakeTensor(4096)
    bound, spec, extra = k._bind(x, x, x, 100)
    check_eq(bound, (x, x, x, 100, 256), "default filled in")
    check_eq(extra, {}, "no options")
    bound, spec, extra = k._bind(x, y_ptr=x, out_ptr=x, n=5, BLOCK=64, num_warps=8)
    check_eq(bound, (x, x, x, 5, 64), "keywords and constexpr by keyword")
    check_eq(extra, {"num_warps": 8}, "options left over")
    raises(TypeError, k._bind, x, x, x)   # n missing: Python's own message
    e = raises(KeyError, k.warmup, x, x, x, 10, grid=(1,), BLOCKSIZE=64)
    check_eq(e.args[0] if e else None, "Keyword argument BLOCKSIZE was specified but unrecognised", "unknown kwarg")
    raises(RuntimeError, k, x, x, x, 10)
    raises(ValueError, triton.jit(do_not_specialize=["nope"]), m.add_kernel.fn)
    meta = lambda grid, kernel, args: {"name": kernel.name}   # noqa: E731
    check(triton.jit(launch_metadata=meta)(m.add_kernel.fn).launch_metadata is meta, "launch_metadata kept")


def test_specialization_keys():
    m = T.write_module(ADD)
    k = m.cast_kernel
    a16, a4 = T.FakeTensor(4096), T.FakeTensor(4100, "torch.float16")

    def sig(*args, **kwargs):
        return k.warmup(*args, grid=(1,), **kwargs).metadata.signature

    base = dict(OUT=tl.float16, MODE="plain", BLOCK=64)
    check_eq(sig(a16, a4, 100, 1.5, True, None, **base),
             "*fp32:16, *fp16, i32, fp32, i1, None, dtype(fp16), 'plain', 64", "basic signature")
    check_eq(sig(a16, a16, 1, 2.0, False, 3, **base).split(", ")[:4], ["*fp32:16", "*fp32:16", "i32:1", "fp32"],
             "== 1 is i32:1")
    check_eq(sig(a16, a16, 32, 2.0, 0, 3, **base).split(", ")[2], "i32:16", "% 16 gets :16")
    check_eq(sig(a16, a16, -48, 2.0, 0, 3, **base).split(", ")[2], "i32:16", "negative % 16")
    check_eq(sig(a16, a16, 2**31, 2.0, 0, 3, **base).split(", ")[2], "i64:16", "i64 above i32")
    check_eq(sig(a16, a16, 2**31 + 1, 2.0, 0, 3, **base).split(", ")[2], "i64", "i64")
    check_eq(sig(a16, a16, -2**31 - 1, 2.0, 0, 3, **base).split(", ")[2], "i64", "i64 below i32")
    check_eq(sig(a16, a16, 2**63 + 1, 2.0, 0, 3, **base).split(", ")[2], "u64", "u64")
    raises(OverflowError, sig, a16, a16, 2**64, 2.0, 0, 3, **base)
    check(raises(OverflowError, sig, a16, a16, -2**63 - 1, 2.0, 0, 3, **base) is not None, "below int64: overflow")
    check_eq(sig(a16, a16, 7, 2.0, 0, 3, OUT=tl.bfloat16, MODE="double", BLOCK=128).split(", ")[-3:],
             ["dtype(bf16)", "'double'", "128"], "constexpr dtype, string, int")
    check_eq(sig(T.dtype("bfloat16"), T.dtype("float16"), 7, 2.0, 0, 3, **base).split(", ")[:2],
             ["*bf16:16", "*fp16:16"], "warmup with torch dtypes")
    check_eq(sig(tl.float16, "*i32", 7, 2.0, 0, 3, **base).split(", ")[:2], ["*fp16:16", "*i32:16"],
             "warmup with dtypes")
    check_eq(sig(T.FakeCudaArray(4096, "<f4"), T.FakeCudaArray(4104, "<f2"), 7, 2.0, 0, 3, **base).split(", ")[:2],
             ["*fp32:16", "*fp16"], "__cuda_array_interface__")
    check_eq(sig(a16, a16, 7, 2.0, 0, 3, OUT=tl.constexpr(tl.float32), MODE="plain", BLOCK=tl.constexpr(32))
             .split(", ")[-3:], ["dtype(fp32)", "'plain'", "32"], "tl.constexpr values")
    check_eq(sig(a16, a16, 7, 2.0, 0, 3, OUT=T.dtype("float64"), MODE="plain", BLOCK=32).split(", ")[-3],
             "dtype(fp64)", "a torch dtype as a constexpr")

    n = m.nospec_kernel
    s = n.warmup(a16, a16, 32, 32, BLOCK=64, grid=(1,)).metadata.signature
    check_eq(s, "*fp32:16, *fp32, i32, i32:16, 64", "do_not_specialize and _on_alignment")
    s = n.warmup(a16, a16, 1, 1, BLOCK=64, grid=(1,)).metadata.signature
    check_eq(s, "*fp32:16, *fp32, i32, i32:1, 64", "do_not_specialize keeps 1 a run-time value")

    # a dtype annotation fixes the type: no i32 by value, no constant 1; :16 still applies
    t = m.typed_kernel
    check_eq(t.warmup(a16, 5, 2.0, BLOCK=64, grid=(1,)).metadata.signature, "*fp32:16, i64, fp32, 64",
             "n: tl.int64 stays i64")
    check_eq(t.warmup(a16, 1, 2.0, BLOCK=64, grid=(1,)).metadata.signature, "*fp32:16, i64, fp32, 64",
             "n: tl.int64 == 1 is not a constant")
    check_eq(t.warmup(a16, 32, 2.0, BLOCK=64, grid=(1,)).metadata.signature, "*fp32:16, i64:16, fp32, 64",
             "n: tl.int64 % 16 gets :16")

    # grids past CUDA's limits are refused, not wrapped to 32 bits
    from tric.jit import normalize_grid
    check_eq(normalize_grid((5,)), (5, 1, 1), "a 1-D grid")
    raises(OverflowError, normalize_grid, (2**32 + 5,))
    raises(OverflowError, normalize_grid, (1, 65536))

    # the cheap key: one entry per argument, the same for equal specializations
    _, k1, _ = k._bind(a16, a4, 100, 1.5, True, None, **base)
    _, k2, _ = k._bind(T.FakeTensor(8192), T.FakeTensor(4102, "torch.float16"), 101, 2.5, False, None, **base)
    check_eq(k1, k2, "same specialization, same key")
    _, k3, _ = k._bind(a16, a4, 100, 1.5, True, None, OUT=tl.float16, MODE="plain", BLOCK=64.0)
    check(k1 != k3, "64 and 64.0 are different constexprs")


def test_memory_and_disk_cache():
    m = T.write_module(ADD)
    x = T.FakeTensor(4096)
    before = len(T.cache_entries())
    c1 = m.add_kernel.warmup(x, x, x, 100, grid=(1,))
    check(not c1.metadata.cache_hit, "first compile misses the disk cache")
    check_eq(len(T.cache_entries()), before + 1, "one disk entry written")
    c2 = m.add_kernel.warmup(x, x, x, 200, grid=(1,))
    check(c1 is c2, "same specialization: the memory cache")
    check_eq(len(m.add_kernel.cache), 1, "one memory entry")
    c3 = m.add_kernel.warmup(x, x, x, 200, grid=(1,), num_warps=8)
    check(c3 is not c1 and c3.metadata.num_warps == 8, "num_warps is part of the key")
    check_eq(len(m.add_kernel.cache), 2, "two memory entries")

    # a second JITFunction over the same function (a program run again): from disk
    d1 = triton.jit(m.add_kernel.fn).warmup(x, x, x, 100, grid=(1,))
    check_eq(d1.asm["ptx"], c1.asm["ptx"], "same PTX from disk")
    check(d1.metadata.cache_hit, "second JITFunction over the same function hits the disk cache")
    check_eq(d1.asm["ir"], c1.asm["ir"], "IR from disk")
    # the same text in another file is compiled for it: its PTX names that file
    m2 = T.write_module(ADD, name=m.__name__ + "_again")
    d2 = m2.add_kernel.warmup(x, x, x, 100, grid=(1,))
    check(not d2.metadata.cache_hit and m2.__file__ in d2.asm["ptx"], "another file: its own PTX")

    # an edited source misses
    m3 = T.write_module(ADD.replace("mask=mask)\n", "mask=mask)  # edited\n", 1))
    e1 = m3.add_kernel.warmup(x, x, x, 100, grid=(1,))
    check(not e1.metadata.cache_hit, "changed source misses")

    # TRIC_CACHE_DIR=off: nothing read or written
    old = os.environ["TRIC_CACHE_DIR"]
    os.environ["TRIC_CACHE_DIR"] = "off"
    try:
        m4 = T.write_module(ADD)
        n_before = len(os.listdir(old))
        f1 = m4.add_kernel.warmup(x, x, x, 100, grid=(1,))
        check(not f1.metadata.cache_hit, "cache off: no hit")
        check_eq(len(os.listdir(old)), n_before, "cache off: nothing written")
    finally:
        os.environ["TRIC_CACHE_DIR"] = old


def test_warmup_asm():
    m = T.write_module(ADD)
    c = m.add_kernel.warmup(tl.float32, tl.float32, tl.float32, 1024, BLOCK=128, grid=(8,))
    check(".entry add_kernel" in c.asm["ptx"], "asm['ptx'] has the entry")
    check("func @add_kernel" in c.asm["ir"] and "#L" in c.asm["ir"], "asm['ir'] is the laid-out IR")
    check_eq(c.name, "add_kernel", "name")
    check_eq(c.metadata.num_warps, 4, "default num_warps")
    check_eq(c.metadata.num_stages, 3, "default num_stages")
    check_eq(c.metadata.shared, 0, "no shared memory")
    check_eq([(p.name, p.type) for p in c.params], [("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("out_ptr", "*fp32"),
                                                     ("n", "i32")], "parameters")
    # Triton's check, error type and message (its test_num_warps_pow2 matches them)
    e = raises(AssertionError, m.add_kernel.warmup, tl.float32, tl.float32, tl.float32, 1024, grid=(1,), num_warps=3)
    check(e is not None and "num_warps must be a power of 2" in str(e), "bad num_warps")


def test_compile_errors():
    m = T.write_module(BAD)
    e = raises(triton.CompilationError, m.bad_kernel.warmup, tl.float32, BLOCK=64, grid=(1,))
    expected = ("%s:7:28: error: name 'undefined_name' is not defined\n"
                "    tl.store(x_ptr + offs, undefined_name)\n"
                "                           ^") % m.__file__
    check_eq(str(e), expected, "compile error text, caret and real path")
    check_eq(str(e.__cause__), "name 'undefined_name' is not defined", "the cause: the message alone, as Triton's")
    e = raises(triton.CompilationError, m.bad_kernel.warmup, tl.float32, BLOCK=48, grid=(1,))
    check(e is not None and str(e).startswith(m.__file__ + ":6:12: error: arange's range must be a power of 2"),
          "constexpr-dependent error")
    check_eq(len(m.bad_kernel.cache), 0, "failed compiles are not cached")


def test_exec_source():
    """A kernel with no file (exec'd code) compiles from linecache's text."""
    filename = "<tric-test-exec>"
    linecache.cache[filename] = (len(ADD), None, ADD.splitlines(True), filename)
    ns = {}
    exec(compile(ADD, filename, "exec"), ns)
    c = ns["add_kernel"].warmup(tl.float32, tl.float32, tl.float32, 7, grid=(1,))
    check(".entry add_kernel" in c.asm["ptx"], "exec'd kernel compiles")
    bad = BAD.replace("undefined_name", "undefined_nam")
    linecache.cache["<bad>"] = (len(bad), None, bad.splitlines(True), "<bad>")
    exec(compile(bad, "<bad>", "exec"), ns)
    e = raises(triton.CompilationError, ns["bad_kernel"].warmup, tl.float32, BLOCK=64, grid=(1,))
    check(e is not None and str(e).startswith("<bad>:7:28: error: name 'undefined_nam' is not defined"),
          "exec'd kernel errors name its pseudo-file")
    ns2 = {}
    exec(compile(ADD, "<nowhere>", "exec"), ns2)
    e = raises(OSError, ns2["add_kernel"].warmup, tl.float32, tl.float32, tl.float32, 7, grid=(1,))
    check(e is not None and "cannot find the source" in str(e), "no source at all")


def test_launch_without_driver():
    if triton._lib.device_arch() is not None:
        return   # a GPU: test/gpu/test_python.py launches for real
    m = T.write_module(ADD)
    x = T.FakeTensor(4096)
    e = raises(triton.DriverError, lambda: m.add_kernel[(triton.cdiv(100, 256),)](x, x, x, 100))
    check(e is not None and "libcuda.so.1" in str(e), "launch without a driver: a clear error")
    c = m.add_kernel[(0,)](x, x, x, 100)
    check(isinstance(c, triton.CompiledKernel), "a zero grid launches nothing (and needs no driver)")
    c = m.add_kernel[lambda meta: (0, triton.cdiv(meta["n"], meta["BLOCK"]))](x, x, x, 100)
    check(isinstance(c, triton.CompiledKernel), "zero grid from a lambda")
    raises(triton.DriverError, lambda: c.n_regs)
    raises(ValueError, lambda: m.add_kernel[(1, 1, 1, 1)](x, x, x, 100))
    raises(TypeError, lambda: m.add_kernel[(1,)](x, "not a tensor", x, 100))


def test_options():
    """Triton's compile options: maxnreg, enable_fp_fusion (and its knob),
    arch, jit(repr=...) naming the kernel; bad values refused."""
    import re
    m = T.write_module(ADD)
    x = T.FakeTensor(4096)
    k = m.add_kernel.warmup(x, x, x, 100, grid=(1,), maxnreg=42, arch="sm80")
    check(re.search(r"\.visible \.entry [^{;]*\.maxnreg 42", k.asm["ptx"]) is not None, "maxnreg: .maxnreg 42")
    check_eq((k.metadata.maxnreg, k.metadata.arch), (42, "sm_80"), "maxnreg and arch in the metadata")
    k = m.add_kernel.warmup(x, x, x, 100, grid=(1,), arch="sm80")
    check(".maxnreg" not in k.asm["ptx"] and "\tadd.f32" in k.asm["ptx"], "default: no register cap, fusable add")
    k = m.add_kernel.warmup(x, x, x, 100, grid=(1,), arch="sm80", enable_fp_fusion=False)
    check("add.rn.f32" in k.asm["ptx"] and not k.metadata.enable_fp_fusion, "enable_fp_fusion=False: add.rn")
    with triton.knobs.language.scope():
        triton.knobs.language.default_fp_fusion = False
        k2 = m.add_kernel.warmup(x, x, x, 100, grid=(1,), arch="sm80")
    check(k2 is k, "knobs.language.default_fp_fusion = False: the same kernel")
    mul_add = T.write_module('''import tric as triton
import tric.language as tl


@triton.jit
def mul_add(data):
    ptrs = data + tl.arange(0, 128)
    tl.store(ptrs, tl.load(ptrs) * 1.5 + 1.0)
''').mul_add
    fused = re.compile(r"(mad|fma)\.r[nzmp]\.(ftz\.)?f32")   # Triton's test of the option
    check(fused.search(mul_add.warmup(x, grid=(1,), arch="sm80").asm["ptx"]) is not None, "x * 1.5 + 1.0: an fma")
    check(fused.search(mul_add.warmup(x, grid=(1,), arch="sm80", enable_fp_fusion=False).asm["ptx"]) is None,
          "enable_fp_fusion=False: no fma")
    check(raises(ValueError, lambda: m.add_kernel.warmup(x, x, x, 100, grid=(1,), maxnreg=5)) is not None,
          "maxnreg=5 refused")
    check(raises(KeyError, lambda: m.add_kernel.warmup(x, x, x, 100, grid=(1,), frobnicate=1)) is not None,
          "unknown option refused")

    def name_of(spec):   # as Triton's test_value_specialization names its kernels
        cst = "_".join(k for k, v in spec.constants.items() if v == 1)
        return "kernel_%s_%s" % (spec.signature["n"], cst)

    named = triton.jit(repr=name_of)(m.add_kernel.fn)
    k = named.warmup(x, x, x, 2 ** 40, grid=(1,), BLOCK=1)
    check_eq(k.name, "kernel_i64_BLOCK", "repr names the kernel")
    check(".entry kernel_i64_BLOCK(" in k.asm["ptx"], "and its PTX entry")


T.run([test_import_and_language, test_decorator_and_binding, test_specialization_keys, test_memory_and_disk_cache,
       test_warmup_asm, test_compile_errors, test_exec_source, test_launch_without_driver, test_options])
