"""triton.knobs: the settings tric honours, under Triton's names. Each reads
its environment variable at every access until a program sets it (then the
set value holds until it is deleted or reset), as Triton's knobs do, and
`with knobs.runtime.scope():` restores a group on exit.

    knobs.language.default_fp_fusion   TRITON_DEFAULT_FP_FUSION (default on): float
                                       multiplies and adds may contract into fma
    knobs.runtime.override_arch        TRITON_OVERRIDE_ARCH, TRIC_ARCH: compile for
                                       this arch ("sm80", "sm_90a") not the device's
    knobs.cache.dir                    TRIC_CACHE_DIR: the disk cache ("off": none)
    knobs.runtime.launch_enter_hook    f(metadata) before every launch, and
    knobs.runtime.launch_exit_hook     after it (None: no call)

Launches read the first two each time, so reading is kept cheap: straight
from os.environ's own dict where it has one.
"""
import contextlib
import os

_UNSET = object()


def _flag(text):
    return text.strip().lower() in ("1", "true", "on", "yes")


# os.environ's contents, bytes keys on POSIX, updated on every assignment
_ENV = getattr(os.environ, "_data", None)
if not isinstance(_ENV, dict) or any(not isinstance(k, bytes) for k in list(_ENV)[:1]):
    _ENV = None


class _Knob:
    """A setting backed by environment variables (the first set wins)."""

    def __init__(self, envs, default, parse=None):
        self.envs, self.default, self.parse = envs, default, parse
        self.benvs = [os.fsencode(e) for e in envs]

    def __set_name__(self, owner, name):
        self.name = "_set_" + name

    def __get__(self, group, owner=None):
        if group is None:
            return self
        v = group.__dict__.get(self.name, _UNSET)
        if v is not _UNSET:
            return v
        for env, benv in zip(self.envs, self.benvs):
            text = _ENV.get(benv) if _ENV is not None else os.environ.get(env)
            if text:
                text = os.fsdecode(text)
                return self.parse(text) if self.parse else text
        return self.default

    def __set__(self, group, value):
        group.__dict__[self.name] = value

    def __delete__(self, group):
        group.__dict__.pop(self.name, None)


class _Group:
    def reset(self):
        self.__dict__.clear()
        return self

    @contextlib.contextmanager
    def scope(self):
        saved = dict(self.__dict__)
        try:
            yield self
        finally:
            self.__dict__.clear()
            self.__dict__.update(saved)


class _CacheDir(_Knob):
    """The disk cache is the C library's, which reads TRIC_CACHE_DIR at each
    compile: setting the knob sets the variable."""

    def __set__(self, group, value):
        super().__set__(group, value)
        os.environ["TRIC_CACHE_DIR"] = str(value)


class language_knobs(_Group):
    default_fp_fusion = _Knob(["TRITON_DEFAULT_FP_FUSION"], True, _flag)


class runtime_knobs(_Group):
    override_arch = _Knob(["TRITON_OVERRIDE_ARCH", "TRIC_ARCH"], None)
    # called with the launch's metadata (CompiledKernel.launch_metadata)
    # before and after every launch, as Triton's profilers set them
    launch_enter_hook = None
    launch_exit_hook = None


class cache_knobs(_Group):
    dir = _CacheDir(["TRIC_CACHE_DIR"], os.path.join(os.path.expanduser("~"), ".cache", "tric"))


language = language_knobs()
runtime = runtime_knobs()
cache = cache_knobs()
