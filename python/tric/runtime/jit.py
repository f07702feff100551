"""triton.runtime.jit: where programs import JITFunction and jit from."""
from ..jit import JITFunction, KernelInterface, MockTensor, jit

__all__ = ["JITFunction", "KernelInterface", "MockTensor", "jit"]
