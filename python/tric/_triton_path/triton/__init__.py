"""`import triton` in a process started by a program running with tric as
triton (torch's compile workers, multiprocessing): tric.as_triton.install()
puts this folder first on PYTHONPATH, so such a process finds this package
before any installed Triton, and it hands over to tric."""
import sys

import tric.as_triton

tric.as_triton.install()
sys.modules["triton"] = sys.modules["tric"]
