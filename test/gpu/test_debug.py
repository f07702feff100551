#!/usr/bin/env python3
"""make gpu-test, third part: print and assert on the GPU.

1. kernels/debug.py's debug_kernel, launched through the tric package on the
   GPU (in a child process, whose stdout receives the device's printf), must
   print the same lines as the same launch under TRIC_INTERPRET=1 on the CPU,
   compared as multisets (the GPU's warps print in no fixed order), with the
   same output buffer;
2. with debug=True and a NaN in the input, tl.device_assert stops the kernel:
   the next synchronization raises, and the device's message names the source
   line and the assertion's text; with debug off the same launch runs.

Environment: TRIC_LIBRARY as for test_python.py.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

CHILD = r"""
import os, sys
sys.path.insert(0, os.path.join(ROOT, "python"))
import numpy as np
import tric
sys.modules["triton"] = tric
sys.modules["triton.language"] = tric.language
import importlib.util
spec = importlib.util.spec_from_file_location("debug_kernels", os.path.join(ROOT, "kernels", "debug.py"))
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
n, mode = 40, sys.argv[1]
x = (np.arange(n, dtype=np.float32) - 7) / 4
if mode in ("nan", "nan_off"):
    x[5] = np.nan
if mode == "cpu":
    out = np.zeros(n, np.float32)
    mod.debug_kernel[(3,)](x, out, n, BLOCK=16)
else:
    import torch
    xt = torch.tensor(x, device="cuda")
    out_t = torch.zeros(n, device="cuda")
    mod.debug_kernel[(3,)](xt, out_t, n, BLOCK=16, debug=(mode == "nan"))
    torch.cuda.synchronize()
    out = out_t.cpu().numpy()
sys.stdout.flush()
print("OUT", " ".join(f"{v:.6g}" for v in out.tolist()))
""".replace("ROOT", repr(ROOT))


def run(mode, interpret):
    env = dict(os.environ)
    env.pop("TRIC_INTERPRET", None)
    if interpret:
        env["TRIC_INTERPRET"] = "1"
    p = subprocess.run([sys.executable, "-c", CHILD, mode], capture_output=True, text=True, env=env, timeout=300)
    return p.returncode, p.stdout, p.stderr


def split(stdout):
    lines = [l for l in stdout.splitlines() if l.startswith("pid ")]
    out = [l for l in stdout.splitlines() if l.startswith("OUT ")]
    return sorted(lines), out


def main():
    npass = nfail = 0

    def check(ok, what, detail=""):
        nonlocal npass, nfail
        print(("[PASS] " if ok else "[FAIL] ") + what + ("" if ok else "\n" + detail))
        npass, nfail = npass + ok, nfail + (not ok)

    rc_c, out_c, err_c = run("cpu", True)
    rc_g, out_g, err_g = run("gpu", False)
    lines_c, res_c = split(out_c)
    lines_g, res_g = split(out_g)
    check(rc_c == 0 and rc_g == 0, "debug_kernel runs on the CPU and the GPU", err_c + err_g)
    check(len(lines_g) > 0 and lines_c == lines_g,
          f"the GPU prints the interpreter's lines ({len(lines_g)} on the GPU, {len(lines_c)} on the CPU)",
          "\n".join(sorted(set(lines_c) ^ set(lines_g))[:10]))
    check(bool(res_c) and res_c == res_g, "the same output buffer", f"{res_c}\n{res_g}")

    rc, out, err = run("nan", False)
    text = out + err
    check(rc != 0 and "x is NaN" in text and "debug.py" in text,
          "debug=True: a NaN stops the kernel with the assertion's text and location",
          f"exit {rc}\n{text[-2000:]}")
    rc, out, err = run("nan_off", False)
    check(rc == 0 and "x is NaN" not in out + err, "debug off: the same launch runs, no assertion in the PTX",
          f"exit {rc}\n{(out + err)[-2000:]}")
    print(f"{npass} passed, {nfail} failed")
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
