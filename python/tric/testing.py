"""tric.testing.do_bench: Triton's benchmark loop. Times fn with CUDA events
(torch's when torch is imported, else libtric's), clearing the L2 cache
before each run by writing a 256 MB buffer."""
import ctypes
import math
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


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="median"):
    """Milliseconds per call of fn: estimated from 5 runs, then warmup ms of
    untimed runs and rep ms of runs timed one by one with events (L2 cleared
    before each). quantiles=(0.5, 0.2, 0.8) returns those; return_mode is
    "min", "max", "mean", "median" (the default) or "all"."""
    if return_mode not in ("min", "max", "mean", "median", "all"):
        raise ValueError("return_mode must be one of min, max, mean, median, all; not %r" % (return_mode,))
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
