"""Triton's triton.backends, as far as programs touch it: the target type."""
from . import compiler

__all__ = ["compiler"]
