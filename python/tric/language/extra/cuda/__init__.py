"""triton.language.extra.cuda: the CUDA libdevice module (the same names as
tric.language.extra.libdevice)."""
from . import libdevice  # noqa: F401
