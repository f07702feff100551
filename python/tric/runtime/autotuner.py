"""triton.runtime.autotuner: where programs import the autotuner from."""
from .._lib import OutOfResources
from ..autotuner import Autotuner, Config, Heuristics, autotune, heuristics

__all__ = ["Autotuner", "Config", "Heuristics", "OutOfResources", "autotune", "heuristics"]
