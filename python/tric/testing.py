"""tric.testing, as triton.testing: do_bench (Triton's benchmark loop: fn
timed with CUDA events, torch's when torch is imported, else libtric's, the
L2 cleared before each run by writing a 256 MB buffer), do_bench_cudagraph,
assert_close, and perf_report / Benchmark / Mark, the tutorials' tables."""
import ctypes
import math
import os
import statistics
import sys

from . import _lib
from .jit import current_stream

_CACHE_BYTES = 256 * 1024 * 1024


class _TorchDevice:
    """Events, synchronization and the L2-clearing buffer through torch."""

    def __init__(self, torch):
        self.torch = torch
        self.cache = torch.empty(_CACHE_BYTES // 4, dtype=torch.int, device="cuda")

    def event(self):
        return self.torch.cuda.Event(enable_timing=True)

    @staticmethod
    def record(event):
        event.record()

    @staticmethod
    def elapsed(start, end):
        return start.elapsed_time(end)

    def synchronize(self):
        self.torch.cuda.synchronize()

    def clear_cache(self):
        self.cache.zero_()

    def close(self):
        self.cache = None


class _TricDevice:
    """The same through libtric: CUevents on the current stream."""

    def __init__(self):
        self.events = []
        ptr = ctypes.c_uint64()
        _lib.call(_lib.lib.tric_mem_alloc, ctypes.byref(ptr), _CACHE_BYTES)
        self.cache = ptr.value

    def event(self):
        ev = ctypes.c_void_p()
        _lib.call(_lib.lib.tric_event_create, ctypes.byref(ev))
        self.events.append(ev.value)
        return ev.value

    @staticmethod
    def record(event):
        _lib.call(_lib.lib.tric_event_record, event, current_stream())

    @staticmethod
    def elapsed(start, end):
        ms = ctypes.c_float()
        _lib.call(_lib.lib.tric_event_synchronize, end)
        _lib.call(_lib.lib.tric_event_elapsed_ms, start, end, ctypes.byref(ms))
        return ms.value

    @staticmethod
    def synchronize():
        _lib.call(_lib.lib.tric_synchronize)

    def clear_cache(self):
        _lib.call(_lib.lib.tric_memset_d8, self.cache, 0, _CACHE_BYTES, current_stream())

    def close(self):
        for ev in self.events:
            _lib.lib.tric_event_destroy(ev, None)
        self.events = []
        if self.cache:
            _lib.lib.tric_mem_free(self.cache, None)
            self.cache = 0


def _device():
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        return _TorchDevice(torch)
    return _TricDevice()


def _quantiles(times, qs):
    """Linearly interpolated quantiles of times."""
    a = sorted(times)
    out = []
    for q in qs:
        if not 0 <= q <= 1:
            raise ValueError("Quantiles must be in the range [0, 1]")
        point = q * (len(a) - 1)
        lo, hi = math.floor(point), math.ceil(point)
        t = point - lo
        out.append((1 - t) * a[lo] + t * a[hi])
    return out


def summarize(times, quantiles=None, return_mode="median"):
    """What do_bench returns from the list of times (ms)."""
    if quantiles is not None:
        ret = _quantiles(times, quantiles)
        return ret[0] if len(ret) == 1 else ret
    if return_mode == "all":
        return times
    if return_mode == "min":
        return min(times)
    if return_mode == "max":
        return max(times)
    if return_mode == "mean":
        return statistics.mean(times)
    return statistics.median(times)


def _check_mode(return_mode):
    if return_mode not in ("min", "max", "mean", "median", "all"):
        raise ValueError("return_mode must be one of min, max, mean, median, all; not %r" % (return_mode,))


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Milliseconds per call of fn: estimated from 5 runs, then warmup ms of
    untimed runs and rep ms of runs timed one by one with events (L2 cleared
    before each). quantiles=(0.5, 0.2, 0.8) returns those; return_mode is
    "min", "max", "mean" (the default, as Triton's), "median" or "all"."""
    _check_mode(return_mode)
    dev = _device()
    try:
        fn()
        dev.synchronize()
        start, end = dev.event(), dev.event()
        dev.record(start)
        for _ in range(5):
            dev.clear_cache()
            fn()
        dev.record(end)
        dev.synchronize()
        estimate_ms = dev.elapsed(start, end) / 5
        n_warmup = max(1, int(warmup / estimate_ms)) if estimate_ms > 0 else 1000
        n_repeat = max(1, int(rep / estimate_ms)) if estimate_ms > 0 else 1000
        starts = [dev.event() for _ in range(n_repeat)]
        ends = [dev.event() for _ in range(n_repeat)]
        for _ in range(n_warmup):
            fn()
        for i in range(n_repeat):
            for x in grad_to_none or ():
                x.grad = None
            dev.clear_cache()
            dev.record(starts[i])
            fn()
            dev.record(ends[i])
        dev.synchronize()
        times = [dev.elapsed(s, e) for s, e in zip(starts, ends)]
    finally:
        dev.close()
    return summarize(times, quantiles, return_mode)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """do_bench with the launches captured in a CUDA graph (torch's), so
    that launch overhead drops out: fn is captured as many times as fill
    about rep ms, the graph replayed 10 times, each replay's time divided
    by the calls in it. Needs torch."""
    import torch
    _check_mode(return_mode)
    with torch.cuda.stream(torch.cuda.Stream()):
        fn()   # compiles and loads before the capture
        for x in grad_to_none or ():
            x.grad = None
        one = torch.cuda.CUDAGraph()
        with torch.cuda.graph(one):
            fn()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(5):
            one.replay()
        end.record()
        torch.cuda.synchronize()
        estimate_ms = start.elapsed_time(end) / 5
        n_calls = max(1, int(rep / estimate_ms)) if estimate_ms > 0 else 1000
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(n_calls):
                for x in grad_to_none or ():
                    x.grad = None
                fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(10):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            graph.replay()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / n_calls)
    return summarize(times, quantiles, return_mode)


def _to_numpy(x):
    import numpy as np
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        if x.dtype == torch.bfloat16:
            x = x.float()
        return x.detach().cpu().numpy()
    return np.asarray(x)


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Raises AssertionError unless x and y (tensors, arrays, lists or
    scalars) agree within atol (default 1e-2) + rtol (default 0) * |y|,
    NaNs matching NaNs; atol and rtol may be functions of x's dtype."""
    import numpy as np
    dtype = getattr(x, "dtype", None)
    atol = 1e-2 if atol is None else atol(dtype) if callable(atol) else atol
    rtol = 0.0 if rtol is None else rtol(dtype) if callable(rtol) else rtol
    a, b = _to_numpy(x), _to_numpy(y)
    if a.size > 1 or b.size > 1:
        np.testing.assert_allclose(a, b, atol=atol, rtol=rtol, equal_nan=True, err_msg=err_msg)
    elif not np.allclose(a, b, atol=atol, rtol=rtol, equal_nan=True):
        raise AssertionError("%s %s is not close to %s (atol=%s, rtol=%s)" % (err_msg, a, b, atol, rtol))


class Benchmark:
    """One table (and plot) of perf_report: for each value of x_vals (given
    to every name of x_names; a tuple gives each its own), one column per
    line_vals value passed as line_arg, named by line_names; args are passed
    to every call."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args, xlabel="", ylabel="",
                 x_log=False, y_log=False, styles=None):
        self.x_names, self.x_vals, self.x_log = list(x_names), x_vals, x_log
        self.line_arg, self.line_vals, self.line_names = line_arg, line_vals, line_names
        self.plot_name, self.args = plot_name, args
        self.xlabel, self.ylabel, self.y_log, self.styles = xlabel, ylabel, y_log, styles


class _Table:
    """The rows a Benchmark gives: without pandas, what run(return_df=True)
    returns (columns, rows and to_string())."""

    def __init__(self, columns, rows):
        self.columns, self.rows = columns, rows

    def to_string(self):
        cells = [[str(c) for c in self.columns]] + [["%g" % v if isinstance(v, float) else str(v) for v in r]
                                                     for r in self.rows]
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.columns))]
        return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells)


class Mark:
    """perf_report's result: run() calls the function over each
    Benchmark's grid and prints, saves, plots or returns the tables."""

    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _measure(self, bench, kwargs):
        rows = []
        for x in bench.x_vals:
            xs = list(x) if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
            if len(xs) != len(bench.x_names):
                raise ValueError("Expected %d values, got %r" % (len(bench.x_names), x))
            means, mins, maxs = [], [], []
            for y in bench.line_vals:
                ret = self.fn(**dict(zip(bench.x_names, xs)), **{bench.line_arg: y}, **bench.args, **kwargs)
                mean, lo, hi = ret if isinstance(ret, (tuple, list)) else (ret, None, None)
                means.append(mean)
                mins.append(lo)
                maxs.append(hi)
            rows.append((xs, means, mins, maxs))
        return rows

    def _plot(self, bench, rows, show_plots, save_path):
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            sys.stderr.write("tric.testing: matplotlib is not installed: no plot for %s\n" % bench.plot_name)
            return
        plt.figure()
        ax = plt.subplot()
        xs = [r[0][0] for r in rows]
        for i, name in enumerate(bench.line_names):
            color, style = bench.styles[i] if bench.styles else (None, None)
            label = "%s (%s)" % (name, bench.ylabel)
            ax.plot(xs, [r[1][i] for r in rows], label=label, color=color, ls=style)
            lo, hi = [r[2][i] for r in rows], [r[3][i] for r in rows]
            if all(v is not None for v in lo + hi):
                ax.fill_between(xs, [float(v) for v in lo], [float(v) for v in hi], alpha=0.15, color=color)
        ax.legend()
        ax.set_xlabel(bench.xlabel or bench.x_names[0])
        ax.set_ylabel(bench.ylabel)
        ax.set_xscale("log" if bench.x_log else "linear")
        ax.set_yscale("log" if bench.y_log else "linear")
        if show_plots:
            plt.show()
        if save_path:
            plt.savefig(os.path.join(save_path, "%s.png" % bench.plot_name))

    def _run(self, bench, save_path, show_plots, print_data, diff_col=False, save_precision=6, **kwargs):
        rows = self._measure(bench, kwargs)
        if bench.plot_name and (show_plots or save_path):
            self._plot(bench, rows, show_plots, save_path)
        columns = bench.x_names + ["%s (%s)" % (n, bench.ylabel) for n in bench.line_names]
        data = [list(xs) + list(means) for xs, means, _, _ in rows]
        if diff_col and len(columns) == 2:
            columns.append("Diff")
            data = [r + [r[1] - r[0]] for r in data]
        try:
            import pandas as pd
        except ImportError:
            table = _Table(columns, data)
        else:
            table = pd.DataFrame(data, columns=columns)
        if print_data:
            print(bench.plot_name + ":")
            print(table.to_string())
        if save_path:
            with open(os.path.join(save_path, "%s.csv" % bench.plot_name), "w") as f:
                f.write(",".join(str(c) for c in columns) + "\n")
                for r in data:
                    f.write(",".join(("%.*f" % (save_precision, v)) if isinstance(v, float) else str(v) for v in r)
                            + "\n")
        return table

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        single = isinstance(self.benchmarks, Benchmark)
        benches = [self.benchmarks] if single else list(self.benchmarks)
        if save_path:
            os.makedirs(save_path, exist_ok=True)
        tables = [self._run(b, save_path, show_plots, print_data, **kwargs) for b in benches]
        if save_path:
            with open(os.path.join(save_path, "results.html"), "w") as f:
                f.write("<html><body>\n%s</body></html>\n" % "".join(
                    '<image src="%s.png"/>\n' % b.plot_name for b in benches))
        if return_df:
            return tables[0] if single else tables
        return None


def perf_report(benchmarks):
    """Decorator: fn(**x, line_arg=y, **args) -> ms or (ms, min, max) over
    each Benchmark's grid; the result's .run() makes the tables."""
    return lambda fn: Mark(fn, benchmarks)


__all__ = ["Benchmark", "Mark", "assert_close", "do_bench", "do_bench_cudagraph", "perf_report", "summarize"]
