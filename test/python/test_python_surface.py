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


T.run([test_version, test_as_triton, test_runtime, test_perf_report, test_do_bench_defaults, test_triton_interpret])
