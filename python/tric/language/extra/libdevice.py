"""triton.language.extra.libdevice seen from plain Python: every name is a
function that can only be called inside a @jit function (tric compiles the
ones doc/math.md lists and names the others as not supported yet)."""
from .. import _JitOnly


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _JitOnly("libdevice." + name, "triton.language.extra.libdevice." + name)
