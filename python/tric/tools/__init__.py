"""Host-side helpers that are not the compiler (as triton.tools)."""
from . import tensor_descriptor

__all__ = ["tensor_descriptor"]
