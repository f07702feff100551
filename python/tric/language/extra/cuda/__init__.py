"""triton.language.extra.cuda: the CUDA libdevice module (the same names as
tric.language.extra.libdevice), and the functions that read what the
program runs with (num_threads, num_warps: constexprs; smid, globaltimer),
callable only inside a @jit function."""
from . import libdevice  # noqa: F401
from ... import _JitOnly

for _name in ("num_threads", "num_warps", "smid", "globaltimer"):
    globals()[_name] = _JitOnly("tl.extra.cuda." + _name, "triton.language.extra.cuda." + _name)
del _name
