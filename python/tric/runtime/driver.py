"""triton.runtime.driver: `driver.active` answers which device, stream and
target launches use, as Triton's CUDA driver does. Devices are torch's
where torch is imported (its current device is where launches without
tensor arguments go), else libtric's (the calling thread's CUDA context);
under TRIC_INTERPRET=1 / TRITON_INTERPRET=1 the torch device is the CPU,
where the interpreter's tensors live."""
import ctypes
import sys

from .. import _lib
from ..backends.compiler import GPUTarget
from ..jit import current_device, current_stream, interpreting

# CUdevice_attribute numbers (cuda.h)
_ATTR = {"max_shared_mem": 97, "max_num_regs": 12, "multiprocessor_count": 16, "warpSize": 10,
         "sm_clock_rate": 13, "mem_clock_rate": 36, "mem_bus_width": 37}
_CC_MAJOR, _CC_MINOR = 75, 76


def _attribute(device, attribute):
    v = ctypes.c_int()
    _lib.call(_lib.lib.tric_device_attribute, device, attribute, ctypes.byref(v))
    return v.value


def _torch():
    import torch
    return torch


class CudaUtils:
    """driver.active.utils."""

    def get_device_properties(self, device):
        """Triton's dict of the device's limits: max_shared_mem (per block,
        opted in), max_num_regs (per block), multiprocessor_count, warpSize,
        sm_clock_rate and mem_clock_rate (kHz), mem_bus_width (bits)."""
        return {name: _attribute(int(device), a) for name, a in _ATTR.items()}


class CudaDriver:
    """driver.active."""

    def __init__(self):
        self.utils = CudaUtils()

    @staticmethod
    def is_active():
        return True

    def get_current_device(self):
        d = current_device()
        if d >= 0:
            return d
        v = ctypes.c_int()
        _lib.call(_lib.lib.tric_get_device, ctypes.byref(v))
        return v.value

    def set_current_device(self, device):
        if "torch" in sys.modules:
            sys.modules["torch"].cuda.set_device(device)
        else:
            _lib.call(_lib.lib.tric_set_device, int(device))

    def get_current_stream(self, device=None):
        """The raw CUstream launches use on `device` (default the current
        one): torch's current stream there, or 0 (the default stream)."""
        return current_stream(-1 if device is None else int(device)) or 0

    def get_current_target(self):
        d = self.get_current_device()
        return GPUTarget("cuda", _attribute(d, _CC_MAJOR) * 10 + _attribute(d, _CC_MINOR), 32)

    def get_active_torch_device(self):
        torch = _torch()
        if interpreting():
            return torch.device("cpu")
        return torch.device("cuda", self.get_current_device())

    def get_device_interface(self):
        return _torch().cuda

    def get_benchmarker(self):
        from ..testing import do_bench
        return do_bench

    def get_empty_cache_for_benchmark(self):
        """256 MB that writing clears the L2 with (Triton's do_bench)."""
        torch = _torch()
        return torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int, device="cuda")

    @staticmethod
    def clear_cache(cache):
        cache.zero_()


class DriverConfig:
    """triton.runtime.driver: `active` (and `default`), the CUDA driver."""

    def __init__(self):
        self.default = CudaDriver()
        self._active = None

    @property
    def active(self):
        return self._active or self.default

    def set_active(self, driver):
        self._active = driver

    def reset_active(self):
        self._active = None


driver = DriverConfig()


def __getattr__(name):
    """`triton.runtime.driver` may name this module rather than `driver`
    (importing the submodule by its triton name rebinds the package's
    attribute to it): the module then answers as `driver` does."""
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(driver, name)

__all__ = ["CudaDriver", "CudaUtils", "DriverConfig", "driver"]
