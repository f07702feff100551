"""Triton's triton.runtime over tric: the autotuner, JITFunction, the
errors, and `driver` (which device, stream and target a launch uses)."""
from ..autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from ..jit import JITFunction, KernelInterface, MockTensor
from .errors import InterpreterError, OutOfResources
from .driver import driver

__all__ = ["autotune", "Autotuner", "Config", "driver", "Heuristics", "heuristics", "InterpreterError",
           "JITFunction", "KernelInterface", "MockTensor", "OutOfResources"]
