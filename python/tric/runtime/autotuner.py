"""triton.runtime.autotuner: where programs import the autotuner from."""
from ..autotuner import Autotuner, Config, Heuristics, autotune, heuristics

__all__ = ["Autotuner", "Config", "Heuristics", "autotune", "heuristics"]
