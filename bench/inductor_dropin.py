"""torch.compile with tric standing in for Triton: torch's Inductor writes
its kernel files (they import torch's helper modules and libdevice),
compiles them through triton.compile and launches them; here tric does
both. The same models are run once with Triton and once with tric (two
processes: one `triton` per process), and tric's outputs are compared
with Triton's and with eager PyTorch's. Needs a GPU, torch and Triton.

    python3 bench/inductor_dropin.py --out DIR            # both runs, then the table
    python3 bench/inductor_dropin.py --impl tric --out DIR   # one side (what the above runs)
"""
import argparse
import json
import os
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))


def models(torch):
    F = torch.nn.functional
    dev = "cuda"

    def t(*shape, dtype=torch.float32):
        return torch.randn(*shape, device=dev, dtype=dtype)

    w768, b768 = t(768), t(768)
    lin1 = torch.nn.Linear(1024, 4096, device=dev, dtype=torch.float16)
    lin2 = torch.nn.Linear(4096, 1024, device=dev, dtype=torch.float16)
    table = t(1000, 256)
    wbf = t(2048, dtype=torch.bfloat16)
    return [
        ("pointwise", lambda x, y: ((x.sin() + y) * torch.sigmoid(y), (x * y).exp2()), (t(4096, 1024), t(4096, 1024))),
        ("softmax fp16", lambda x: torch.softmax(x, -1), (t(2048, 1000, dtype=torch.float16),)),
        ("layer_norm", lambda x: F.layer_norm(x, (768,), w768, b768), (t(4096, 768),)),
        ("reductions", lambda x: (x.sum(0), x.amax(1), torch.var_mean(x, 1)), (t(1024, 513),)),
        ("mlp gelu fp16", lambda x: lin2(F.gelu(lin1(x))), (t(512, 1024, dtype=torch.float16),)),
        ("argmax, cumsum", lambda x: (x.argmax(1), x.cumsum(1)), (t(256, 2048),)),
        ("rms_norm bf16", lambda x: x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(x.dtype) * wbf,
         (t(1024, 2048, dtype=torch.bfloat16),)),
        ("attention fp16", lambda q, k, v: torch.softmax(q @ k.transpose(-1, -2) / 8, -1) @ v,
         (t(8, 512, 64, dtype=torch.float16), t(8, 512, 64, dtype=torch.float16), t(8, 512, 64, dtype=torch.float16))),
        ("embedding, ints", lambda i, x: (F.embedding(i, table) * 2, (x > 0).to(torch.int32) * 3 + i[:, :1] % 7),
         (torch.randint(0, 1000, (512, 64), device=dev), t(512, 64))),
        ("silu mul, mean", lambda x, g: (F.silu(g) * x, x.mean((0, 1))), (t(64, 128, 256), t(64, 128, 256))),
    ]


def flat(out):
    if isinstance(out, (tuple, list)):
        return [y for x in out for y in flat(x)]
    return [out]


def run_side(impl, out_dir):
    cache = os.path.join(out_dir, "inductor_cache_" + impl)
    # Inductor's defaults otherwise: kernels compiled in worker processes
    # (they import triton too, so under tric they get tric), the static launcher on
    os.environ.update(TORCHINDUCTOR_CACHE_DIR=cache, TORCHINDUCTOR_FORCE_DISABLE_CACHES="1")
    if impl == "tric":
        sys.path.insert(0, os.path.join(HERE, "..", "python"))
        import tric.as_triton
        tric.as_triton.install()   # before torch: `import triton` anywhere is tric
    import torch
    import triton
    compiled_names = []
    real_compile = triton.compile

    def counting_compile(src, *a, **kw):
        compiled_names.append(getattr(src, "name", "?"))
        return real_compile(src, *a, **kw)

    triton.compile = counting_compile
    # kernels compiled in Inductor's worker processes arrive here as states that
    # the parent loads with _init_handles: count those by name
    loaded = []
    from triton.compiler import CompiledKernel
    real_init = CompiledKernel._init_handles

    def counting_init(self):
        loaded.append(self.name)
        return real_init(self)

    CompiledKernel._init_handles = counting_init
    torch.manual_seed(0)
    results = {"impl": impl, "triton": triton.__version__, "torch": torch.__version__,
               "device": torch.cuda.get_device_name(), "models": []}
    for name, fn, args in models(torch):
        rec = {"name": name}
        n0, l0 = len(compiled_names), len(loaded)
        t0 = time.time()
        try:
            with torch.no_grad():
                eager = flat(fn(*args))
                got = flat(torch.compile(fn)(*args))
            torch.cuda.synchronize()
            torch.save([g.cpu() for g in got], os.path.join(out_dir, "%s_%s.pt" % (impl, name.replace(" ", "_"))))
            rec["vs_eager"] = [err(g, e) for g, e in zip(got, eager)]
            rec["status"] = "ok"
        except Exception as e:   # noqa: BLE001 (the table reports it)
            rec["status"] = "error"
            rec["error"] = ("%s: %s" % (type(e).__name__, e)).splitlines()[0][:300]
            rec["trace"] = traceback.format_exc()[-3000:]
        rec["kernels"] = sorted(set(compiled_names[n0:]) | set(loaded[l0:]))
        rec["seconds"] = round(time.time() - t0, 2)
        results["models"].append(rec)
        torch._dynamo.reset()
    files = []
    for root, _, names in os.walk(cache):
        for f in names:
            if f.endswith(".py"):
                with open(os.path.join(root, f), errors="replace") as fh:
                    if "@triton.jit" in fh.read():
                        files.append(os.path.join(root, f))
    results["kernel_files"] = len(files)
    with open(os.path.join(out_dir, impl + ".json"), "w") as f:
        json.dump(results, f, indent=1)


def err(a, b):
    """max |a - b| / (1 + max |b|), in float64 (ints exactly)."""
    a, b = a.double().cpu(), b.double().cpu()
    return float((a - b).abs().max() / (1 + b.abs().max())) if a.numel() else 0.0


def table(out_dir):
    import torch
    sides = {}
    for impl in ("triton", "tric"):
        with open(os.path.join(out_dir, impl + ".json")) as f:
            sides[impl] = json.load(f)
    tr, tc = sides["triton"], sides["tric"]
    print("torch %s; Triton %s vs tric (%s); %s" % (tc["torch"], tr["triton"], tc["triton"], tc["device"]))
    print("%-17s %8s %8s %12s %12s  %s" % ("model", "Triton's", "tric's", "tric-Triton", "tric-eager", "status"))
    n_ok = 0
    for a, b in zip(tr["models"], tc["models"]):
        vs_triton = "-"
        status = b["status"]
        if b["status"] == "ok" and a["status"] == "ok":
            key = b["name"].replace(" ", "_")
            x = torch.load(os.path.join(out_dir, "tric_%s.pt" % key))
            y = torch.load(os.path.join(out_dir, "triton_%s.pt" % key))
            d = max(err(p, q) for p, q in zip(x, y))
            vs_triton = "%.2e" % d
            if d > 2e-2:
                status = "MISMATCH"
        if status == "ok":
            n_ok += 1
        vs_eager = "%.2e" % max(b.get("vs_eager") or [float("nan")])
        print("%-17s %8d %8d %12s %12s  %s" % (b["name"], len(a["kernels"]), len(b["kernels"]), vs_triton, vs_eager,
                                            status if status != "error" else "error: " + b["error"][:90]))
    print("(kernels: distinct kernels compiled or loaded by each run)")
    print("kernel files written by Inductor: Triton run %d, tric run %d" % (tr["kernel_files"], tc["kernel_files"]))
    print("%d of %d models compiled by tric match Triton" % (n_ok, len(tc["models"])))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--impl", choices=["triton", "tric"])
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.impl:
        run_side(a.impl, a.out)
        return
    for impl in ("triton", "tric"):
        subprocess.call([sys.executable, os.path.abspath(__file__), "--impl", impl, "--out", a.out])
    table(a.out)


if __name__ == "__main__":
    main()
