"""triton.autotune, triton.heuristics and triton.Config, with Triton's
rules: the tuning key is the values of the `key` arguments plus the dtypes
of the tensor arguments; each config is timed with do_bench (injectable),
a config that does not compile is timed as inf, and the best config per key
is kept for the life of the kernel object. Before timing, configs whose
register estimate is far above 255 (they would spill) are skipped, unless
all would be."""
import builtins
import inspect
import os
import sys
import time

from . import _lib
from .jit import KernelInterface


class Config:
    """One point of the search space: meta-parameter values (kwargs, passed
    as the kernel's constexprs) and launch options."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None):
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook

    def all_kwargs(self):
        options = (("num_warps", self.num_warps), ("num_ctas", self.num_ctas), ("num_stages", self.num_stages),
                   ("maxnreg", self.maxnreg))
        return {**self.kwargs, **{k: v for k, v in options if v is not None}}

    def __str__(self):
        parts = ["%s: %s" % (k, v) for k, v in self.kwargs.items()]
        parts += ["num_warps: %s" % self.num_warps, "num_ctas: %s" % self.num_ctas,
                  "num_stages: %s" % self.num_stages, "maxnreg: %s" % self.maxnreg]
        return ", ".join(parts)

    def __repr__(self):
        return "Config(%s)" % self


def _verbose():
    return os.environ.get("TRIC_PRINT_AUTOTUNING") == "1"


def _default_bench(warmup, rep):
    def bench(kernel_call, quantiles):
        from . import testing
        return testing.do_bench(kernel_call, warmup=warmup if warmup is not None else 25,
                                rep=rep if rep is not None else 100, quantiles=quantiles)
    return bench


# A kernel that faulted leaves the context unusable (the errors are sticky):
# that is a bug to report, not a config to skip, as in Triton.
_FAULTS = ("CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_MISALIGNED_ADDRESS", "CUDA_ERROR_LAUNCH_FAILED",
           "CUDA_ERROR_ILLEGAL_INSTRUCTION", "CUDA_ERROR_HARDWARE_STACK_ERROR", "CUDA_ERROR_INVALID_PC",
           "CUDA_ERROR_ASSERT", "CUDA_ERROR_LAUNCH_TIMEOUT")


# Configs whose register estimate (CompiledKernel.est_regs) is above this are
# pruned before timing, unless every config is. The estimate runs up to
# 1.8x ptxas's count on the calibration set (test/unit/test_regs.c: the
# largest over-estimate among kernels that do not spill is 412 for 246, the
# fp32 FMA matmul; 1.8x for a small argmax), so only an estimate above
# 1.8 x 255 means a spill whatever the error; nearer 255 the timing decides.
SPILL_PRUNE_REGS = int(1.8 * 255)


def _failed_to_build(e):
    """A config error that means "this config cannot run" (does not compile,
    the driver's JIT rejects it, too many resources to launch): timed as inf."""
    if isinstance(e, (_lib.CompilationError, _lib.OutOfResources)):
        return True
    return (isinstance(e, _lib.DriverError) and e.status == _lib.TRIC_ERR_CUDA
            and not any(f in str(e) for f in _FAULTS))


class Autotuner(KernelInterface):
    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None, pre_hook=None,
                 post_hook=None, prune_configs_by=None, warmup=None, rep=None, do_bench=None):
        self.fn = fn
        self.arg_names = list(arg_names)
        self.configs = list(configs) if configs else [Config({}, num_warps=4, num_stages=3, num_ctas=1)]
        self.keys = list(key)
        self.cache = {}          # tuning key -> best Config
        self.configs_timings = None
        self.best_config = None
        self.bench_time = 0.0
        self.nargs = None
        for what, names in (("reset_to_zero", reset_to_zero), ("restore_value", restore_value)):
            for name in names or ():
                if name not in self.arg_names:
                    raise ValueError("tric.autotune: %s names '%s', which is not a parameter" % (what, name))
        self.reset_to_zero = list(reset_to_zero or ())
        self.restore_value = list(restore_value or ())
        self.restore_copies = {}
        self.pre_hook = pre_hook or self._reset_and_save
        self.post_hook = post_hook or self._restore
        prune_configs_by = prune_configs_by or {}
        self.perf_model = prune_configs_by.get("perf_model")
        self.configs_top_k = prune_configs_by.get("top_k", 1.0)
        self.early_config_prune = prune_configs_by.get("early_config_prune")
        self.do_bench = do_bench or _default_bench(warmup, rep)
        self.base_fn = fn
        while not inspect.isfunction(self.base_fn):
            self.base_fn = self.base_fn.fn

    # reset_to_zero / restore_value: around every timed run, so that a kernel
    # which accumulates into its output is timed (and left) as if run once
    def _reset_and_save(self, nargs, reset_only=False):
        for name in self.reset_to_zero:
            nargs[name].zero_()
        if not reset_only:
            self.restore_copies = {name: nargs[name].clone() for name in self.restore_value}

    def _restore(self, nargs, exception):
        for name in self.restore_value:
            nargs[name].copy_(self.restore_copies[name])
        self.restore_copies = {}

    def _bench(self, *args, config, **meta):
        verbose = _verbose()
        if verbose:
            print("Autotuning kernel %s with config %s" % (self.base_fn.__name__, config))
        conflicts = meta.keys() & config.kwargs.keys()
        if conflicts:
            raise ValueError("Conflicting meta-parameters: %s. Make sure that you don't re-define auto-tuned "
                             "symbols." % ", ".join(sorted(conflicts)))
        current = dict(meta, **config.all_kwargs())
        full_nargs = {**self.nargs, **current}

        def kernel_call():
            if config.pre_hook:
                config.pre_hook(full_nargs)
            self.pre_hook(full_nargs)
            try:
                self.fn.run(*args, **current)
            except Exception as e:
                try:
                    self.post_hook(full_nargs, exception=e)
                finally:
                    raise
            self.post_hook(full_nargs, exception=None)

        try:
            return self.do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8))
        except Exception as e:
            if not _failed_to_build(e):
                raise
            if verbose:
                print("Autotuning failed with %s" % e)
            return [float("inf"), float("inf"), float("inf")]

    def _tuning_key(self, args, kwargs):
        all_args = {**self.nargs, **kwargs}
        named = {k: v for k, v in all_args.items() if k in self.arg_names}
        key = [named[k] for k in self.keys if k in named]
        key += [str(v.dtype) for v in named.values() if hasattr(v, "dtype")]
        return tuple(key)

    def prune_configs(self, kwargs):
        pruned = self.configs
        if self.early_config_prune:
            pruned = self.early_config_prune(self.configs, self.nargs, **kwargs)
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(self.configs) * top_k))   # a small fraction still keeps one
            elif not isinstance(top_k, int):
                raise TypeError("Error while pruning configs, top_k must be either 1) a float <= 1.0 or 2) an int")
            if len(pruned) > top_k:
                est = {config: self.perf_model(**self.nargs, **kwargs, **config.all_kwargs()) for config in pruned}
                pruned = sorted(est.keys(), key=lambda c: est[c])[:top_k]
        return pruned

    def _prune_spilling(self, args, kwargs, configs):
        """The configs whose register estimate is not far above 255 (all of
        them if none is); each is compiled (and kept in the kernel's cache)
        without launching."""
        if len(configs) < 2:
            return configs
        est = {}
        for config in configs:
            est[config] = 0
            if kwargs.keys() & config.kwargs.keys():
                continue   # _bench reports the conflict
            try:
                compiled = self.fn.run(*args, **dict(kwargs, warmup=True), **config.all_kwargs())
                est[config] = getattr(compiled, "est_regs", 0)
            except Exception as e:
                if not _failed_to_build(e):
                    raise
        kept = [c for c in configs if est[c] <= SPILL_PRUNE_REGS]
        if _verbose():
            for c in configs:
                if est[c] > SPILL_PRUNE_REGS:
                    print("Autotuning skips config %s: ~%d registers per thread would spill" % (c, est[c]))
        return kept or configs

    def run(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        used_cached = True
        key = None
        if len(self.configs) > 1:
            key = self._tuning_key(args, kwargs)
            if key not in self.cache:
                used_cached = False
                pruned = self._prune_spilling(args, kwargs, self.prune_configs(kwargs))
                start = time.time()
                timings = {config: self._bench(*args, config=config, **kwargs) for config in pruned}
                self.bench_time = time.time() - start
                self.cache[key] = builtins.min(timings, key=timings.get)
                self.pre_hook({**self.nargs, **kwargs, **self.cache[key].all_kwargs()}, reset_only=True)
                self.configs_timings = timings
            config = self.cache[key]
        else:
            config = self.configs[0]
        self.best_config = config
        if _verbose() and not used_cached:
            print("tric autotuning for function %s,\nwith key as %s,\nfinished after %.2fs,\nbest config selected: "
                  "%s;" % (self.base_fn.__name__, key, self.bench_time, config))
            sys.stdout.flush()
        if config.pre_hook is not None:
            config.pre_hook({**self.nargs, **kwargs, **config.all_kwargs()})
        ret = self.fn.run(*args, **kwargs, **config.all_kwargs())
        self.nargs = None
        return ret

    def warmup(self, *args, **kwargs):
        """Compiles every (pruned) config; returns the compiled kernels."""
        self.nargs = dict(zip(self.arg_names, args))
        compiled = [self.fn.warmup(*args, **kwargs, **config.all_kwargs()) for config in self.prune_configs(kwargs)]
        self.nargs = None
        return compiled


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=False):
    """@autotune(configs=[Config(...)], key=["n"]): time each config the first
    time a key value is seen and run the fastest from then on.
    prune_configs_by = {"perf_model", "top_k", "early_config_prune"};
    do_bench(kernel_call, quantiles) replaces the timer."""
    if use_cuda_graph:
        raise NotImplementedError("tric.autotune: use_cuda_graph is not supported")
    if cache_results:
        raise NotImplementedError("tric.autotune: cache_results is not supported (compiled kernels are cached)")

    def decorator(fn):
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value, pre_hook=pre_hook,
                         post_hook=post_hook, prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         do_bench=do_bench)
    return decorator


class Heuristics(KernelInterface):
    def __init__(self, fn, arg_names, values):
        self.fn = fn
        self.arg_names = list(arg_names)
        self.values = values

    def _apply(self, args, kwargs):
        for name, heur in self.values.items():
            kwargs[name] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return kwargs

    def run(self, *args, **kwargs):
        return self.fn.run(*args, **self._apply(args, kwargs))

    def warmup(self, *args, **kwargs):
        return self.fn.warmup(*args, **self._apply(args, kwargs))


def heuristics(values):
    """@heuristics({"BLOCK": lambda args: ...}): meta-parameters computed from
    the other arguments at each call."""
    def decorator(fn):
        return Heuristics(fn, fn.arg_names, values)
    return decorator
