"""Triton's module surface that programs touch beyond the kernel language:
triton.runtime (driver.active, the errors, JITFunction), triton.backends
.compiler.GPUTarget, triton.testing (perf_report / Benchmark, do_bench's
defaults, assert_close), __version__ and TRITON_INTERPRET=1; under the fake
CUDA driver (two devices of compute capability 9.0, 132 SMs)."""
import array
import contextlib
import io
import os
import re
import sys

import tric_testlib as T
from tric_testlib import check, check_eq, raises

T.under_fake_driver()

import tric as triton  # noqa: E402
import tric.language as tl  # noqa: E402


def test_version():
    """A version that packaging parses and compares as the Triton it
    follows, tric's own as the local part."""
    check_eq(triton.__version__, "3.6.0+tric." + triton._lib.version(), "__version__")
    # PEP 440: release, then a local part of alphanumerics and dots
    check(re.fullmatch(r"\d+(\.\d+)*\+[a-z0-9]+(\.[a-z0-9]+)*", triton.__version__) is not None, "PEP 440")


def test_runtime():
    from tric.runtime import driver
    import tric.runtime.jit
    import tric.runtime.autotuner
    from tric.runtime.errors import OutOfResources
    from tric.backends.compiler import GPUTarget
    check(triton.runtime.JITFunction is triton.JITFunction and tric.runtime.jit.jit is triton.jit, "JITFunction, jit")
    check(tric.runtime.autotuner.Autotuner is triton.Autotuner, "the autotuner")
    active = driver.active
    check_eq(active.get_current_target(), GPUTarget("cuda", 90, 32), "the target: compute capability 9.0")
    props = active.utils.get_device_properties(1)
    check_eq((props["multiprocessor_count"], props["max_shared_mem"]), (132, 232448), "device 1's properties")
    check_eq(sorted(props), sorted(["max_shared_mem", "max_num_regs", "multiprocessor_count", "warpSize",
                                    "sm_clock_rate", "mem_clock_rate", "mem_bus_width"]), "Triton's keys")
    check_eq(active.get_current_stream(), 0, "no torch: the default stream")
    check_eq(active.get_current_device(), 0, "device 0 first")
    active.set_current_device(1)
    check_eq(active.get_current_device(), 1, "set_current_device(1)")
    active.set_current_device(0)
    e = raises(ValueError, lambda: active.utils.get_device_properties(7))
    check(e and "no CUDA device 7 (this machine has 2)" in str(e), "device 7: %s" % e)
    # OutOfResources: what a launch needing more shared memory than the device has raises
    e = OutOfResources("kernel 'k' needs 262144 bytes of shared memory; device 0 allows 232448 per block")
    check(isinstance(e, triton.DriverError), "a DriverError")
    check_eq((e.required, e.limit, e.name), (262144, 232448, "shared memory"), "required, limit, name")


def test_perf_report():
    calls = []

    @triton.testing.perf_report([
        triton.testing.Benchmark(x_names=["M", "N"], x_vals=[128, (256, 512)], line_arg="provider",
                                 line_vals=["a", "b"], line_names=["A", "B"], plot_name="mm", args={"K": 3},
                                 ylabel="TFLOPS"),
    ])
    def bench(M, N, K, provider):
        calls.append((M, N, K, provider))
        ms = float(M + N + (1 if provider == "b" else 0))
        return ms, ms - 1, ms + 1

    out = io.StringIO()
    save = os.path.join(T.TMP, "perf")
    with contextlib.redirect_stdout(out):
        tables = bench.run(print_data=True, save_path=save, return_df=True)
    check_eq(calls, [(128, 128, 3, "a"), (128, 128, 3, "b"), (256, 512, 3, "a"), (256, 512, 3, "b")],
             "each x, each line, the fixed args")
    check_eq(len(tables), 1, "a list of tables for a list of benchmarks")
    text = out.getvalue()
    check(text.startswith("mm:\n") and "A (TFLOPS)" in text and "769" in text, "the printed table:\n" + text)
    with open(os.path.join(save, "mm.csv")) as f:
        lines = f.read().splitlines()
    check_eq(lines[0], "M,N,A (TFLOPS),B (TFLOPS)", "the csv header")
    check_eq(lines[2], "256,512,768.000000,769.000000", "a csv row")
    check(os.path.exists(os.path.join(save, "results.html")), "results.html")
    bad = triton.testing.perf_report(triton.testing.Benchmark(["M", "N"], [(1, 2, 3)], "p", [1], ["one"], "x", {}))(
        lambda M, N, p: 1.0)
    e = raises(ValueError, bad.run)
    check(e and "Expected 2 values" in str(e), "a tuple of the wrong length: %s" % e)


def test_do_bench_defaults():
    """do_bench's return_mode is "mean" by default, as Triton's; the fake
    driver's events say 0.5 ms per launch."""
    m = T.write_module('''import tric as triton
import tric.language as tl


@triton.jit
def one(x_ptr):
    tl.store(x_ptr, 1.0)
''')
    x = T.FakeTensor(0x10000)
    calls = [0]

    def run():   # every third call launches 4 times: 0.5, 0.5, 2.0 ms ... (median 0.5)
        calls[0] += 1
        for _ in range(4 if calls[0] % 3 == 0 else 1):
            m.one[(1,)](x)
    ms = triton.testing.do_bench(run, warmup=1, rep=20)
    check(0.6 < ms < 1.5, "the mean, not the median: %s" % ms)
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("note: numpy not installed: assert_close not checked")
        return
    triton.testing.assert_close([1.0, 2.0], [1.005, 2.0])
    check(raises(AssertionError, triton.testing.assert_close, [1.0, 2.0], [1.5, 2.0]) is not None, "not close")
    triton.testing.assert_close(1.0, 1.2, atol=lambda dtype: 0.5)


def test_triton_interpret():
    """TRITON_INTERPRET=1 runs kernels on the interpreter, as TRIC_INTERPRET=1."""
    interpreting = sys.modules["tric.jit"].interpreting
    os.environ["TRITON_INTERPRET"] = "1"
    try:
        check(interpreting(), "interpreting under TRITON_INTERPRET=1")
        m = T.write_module('''import tric as triton
import tric.language as tl


@triton.jit
def fill(x_ptr, v):
    tl.store(x_ptr + tl.arange(0, 4), v)
''')
        out = array.array("f", [0.0] * 4)
        m.fill[(1,)](out, 2.5)
        check_eq(list(out), [2.5] * 4, "the kernel ran on the CPU")
    finally:
        del os.environ["TRITON_INTERPRET"]
    check(not interpreting(), "and not without it")


def test_as_triton():
    """python -m tric.as_triton runs a script written for `import triton`
    on tric, its arguments passed."""
    import subprocess
    script = os.path.join(T.TMP, "uses_triton.py")
    with open(script, "w") as f:
        f.write('''import array
import sys

import triton
import triton.language as tl
from triton.runtime import driver


@triton.jit
def fill(x_ptr, v):
    tl.store(x_ptr + tl.arange(0, 4), v)


out = array.array("f", [0.0] * 4)
fill[(1,)](out, float(sys.argv[1]))
print(triton.__name__, tl.__name__, type(driver.active).__name__, list(out))
import triton.compiler_that_is_not
''')
    package_dir = os.path.dirname(os.path.dirname(triton.__file__))
    env = dict(os.environ, TRITON_INTERPRET="1",
               PYTHONPATH=os.pathsep.join([package_dir] + os.environ.get("PYTHONPATH", "").split(os.pathsep)))
    r = subprocess.run([sys.executable, "-m", "tric.as_triton", script, "1.5"], env=env, capture_output=True,
                       text=True)
    check_eq(r.stdout, "tric tric.language CudaDriver [1.5, 1.5, 1.5, 1.5]\n", "the script's output")
    check("No module named 'triton.compiler_that_is_not' (tric, standing in for triton, has no "
          "tric.compiler_that_is_not)" in r.stderr, "a missing module named: " + r.stderr[-300:])


def test_compiler():
    """triton.compile(ASTSource(...)) and CompiledKernel.run as torch's
    Inductor drives them: a signature naming every parameter, a value for
    a plain parameter (specialized), attrs' divisibility, Inductor's
    options; launched with every argument, constexprs too. And what
    Inductor's helper modules import."""
    import ctypes
    import inspect
    from tric.backends.compiler import GPUTarget
    from tric.compiler import ASTSource, CompiledKernel, compile
    from tric.compiler.compiler import make_backend, triton_key
    m = T.write_module('''import tric as triton
import tric.language as tl


@triton.jit
def scale(x_ptr, out_ptr, xnumel, r0_numel, XBLOCK: tl.constexpr):
    offs = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < xnumel) * r0_numel, mask=offs < xnumel)
''')
    sig = {"x_ptr": "*fp32", "out_ptr": "*fp32", "xnumel": "i32", "r0_numel": "i32", "XBLOCK": "constexpr"}
    src = ASTSource(m.scale, sig, {"XBLOCK": 64, "r0_numel": 1}, {(0,): [["tt.divisibility", 16]]})
    check_eq(src.constants, {(4,): 64, (3,): 1}, "constants keyed by (index,), as Triton's")
    options = {"num_warps": 2, "num_stages": 1, "debug": True, "sanitize_overflow": False,
               "enable_fp_fusion": True, "launch_cooperative_grid": False, "launch_pdl": False}
    k = compile(src, target=GPUTarget("cuda", 80, 32), options=options)
    check(isinstance(k, CompiledKernel) and k.src is src and len(k.hash) == 64, "a CompiledKernel with src, hash")
    check_eq(k.metadata.signature, "*fp32:16, *fp32, i32, 1, 64", "tric's signature: values baked in")
    check_eq((k.metadata.arch, k.metadata.num_warps, k.packed_metadata), ("sm_80", 2, (2, 1, 0)), "arch, warps")
    check_eq(len(k.params), 3, "launch parameters: the pointers and xnumel")
    k._init_handles()
    x, out = T.FakeTensor(0x10000), T.FakeTensor(0x20000)
    calls = []
    before = fake_launch_count()
    k.run(3, 1, 1, 0x700, k.function, k.packed_metadata, k.launch_metadata((3, 1, 1), 0x700, x, out, 100, 1, 64),
          calls.append, calls.append, x, out, 100, 1, 64)
    check_eq(fake_launch_count(), before + 1, "run launched it")
    check_eq([c["grid"] for c in calls], [(3, 1, 1)] * 2, "the hooks saw the launch")
    # Inductor's compile workers send a compiled kernel's __dict__ (metadata and
    # packed_metadata as they are, module/function/run None) to the parent,
    # which rebuilds it with CompiledKernel.__new__ and calls _init_handles()
    import pickle
    fn = src.fn
    saved = fn.fn, fn.__globals__
    fn.fn = fn.__globals__ = None   # what Inductor's prepare_for_pickle drops
    try:
        state = pickle.dumps({**k.__dict__, "module": None, "function": None, "run": None})
    finally:
        fn.fn, fn.__globals__ = saved
    k2 = CompiledKernel.__new__(CompiledKernel)
    k2.__dict__.update(pickle.loads(state))
    k2._init_handles()
    before = fake_launch_count()
    k2.run(3, 1, 1, 0x700, k2.function, k2.packed_metadata, None, None, None, x, out, 100, 1, 64)
    check_eq(fake_launch_count(), before + 1, "a kernel moved through pickle launches after _init_handles")
    check_eq(k2.src.fn.arg_names, m.scale.arg_names, "its src's function keeps its parameters")
    e = raises(ValueError, lambda: ASTSource(m.scale, dict(sig, XBLOCK="constexpr")).tric_signature())
    check(e is not None and "needs a value in constexprs" in str(e), "a constexpr without a value: %s" % e)
    check_eq(make_backend(GPUTarget("cuda", 90, 32)).parse_options(dict()).__dict__["num_stages"], 3,
             "the backend's option defaults")
    check(triton_key().startswith("tric-"), "triton_key")
    # what torch._inductor.runtime.triton_compat and triton_helpers reach for
    import tric.as_triton
    tric.as_triton.install()
    import triton
    import triton.backends.compiler
    import triton.compiler.compiler
    from triton.runtime.autotuner import OutOfResources  # noqa: F401
    from triton.runtime.cache import triton_key as key2
    from triton.runtime.jit import JITFunction, KernelInterface  # noqa: F401
    check(key2 is triton_key, "triton.runtime.cache.triton_key")
    check("_semantic" not in inspect.signature(triton.language.core.view).parameters, "tl.core.view inspectable")
    check(not hasattr(triton.backends.compiler, "AttrsDescriptor") and
          not hasattr(triton.compiler.compiler, "AttrsDescriptor"), "no AttrsDescriptor: attrs dicts")
    active = [n for n, b in triton.backends.backends.items()
              if b.driver.is_active() and isinstance(triton.runtime.driver.active, b.driver)]
    check_eq(active, ["nvidia"], "the active driver is the nvidia backend's")
    import triton.runtime.driver   # rebinds triton.runtime's `driver` to the submodule, as in any import
    check(isinstance(triton.runtime.driver.active, triton.backends.backends["nvidia"].driver),
          "triton.runtime.driver.active after importing the submodule by name")


def test_packaging():
    """pip install . ships every package of tric, and the triton redirect
    that processes started under tric.as_triton import."""
    import re
    root = os.path.join(os.path.dirname(os.path.abspath(triton.__file__)), "..")
    with open(os.path.join(root, "..", "pyproject.toml")) as f:
        text = f.read()
    listed = set(re.findall(r'"(tric[\w.]*)"', re.search(r"packages = \[(.*?)\]", text, re.S).group(1)))
    found = set()
    for d, _, files in os.walk(os.path.join(root, "tric")):
        if "__init__.py" in files and "_triton_path" not in d:
            found.add(os.path.relpath(d, root).replace(os.sep, "."))
    check_eq(sorted(found - listed), [], "packages missing from pyproject.toml")
    check('"_triton_path/triton/__init__.py"' in text, "the triton redirect is package data")
    import subprocess
    import tric.as_triton
    tric.as_triton.install()
    out = subprocess.run([sys.executable, "-c", "import triton; print(triton.__name__)"], capture_output=True,
                         text=True)
    check_eq(out.stdout.strip(), "tric", "a child process's `import triton` is tric: %s" % out.stderr[-300:])


def fake_launch_count():
    import ctypes
    return ctypes.CDLL(os.environ["TRIC_FAKE_CUDA"]).fake_launch_count()


T.run([test_version, test_as_triton, test_runtime, test_perf_report, test_do_bench_defaults, test_triton_interpret,
       test_compiler, test_packaging])
