"""Triton's triton.backends, as far as programs touch it: the target type,
and `backends`, the one backend tric has (name -> its compiler and driver
classes), which tools such as torch's Inductor look the active driver up in."""
from . import compiler


class Backend:
    """backends["nvidia"]: .compiler (what make_backend gives) and .driver
    (the class of triton.runtime.driver.active)."""

    def __init__(self, name):
        self.name = name

    @property
    def compiler(self):
        from ..compiler.compiler import CUDABackend
        return CUDABackend

    @property
    def driver(self):
        from ..runtime.driver import CudaDriver
        return CudaDriver


backends = {"nvidia": Backend("nvidia")}

__all__ = ["Backend", "backends", "compiler"]
