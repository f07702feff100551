#!/usr/bin/env python3
"""make gpu-test, second half: the tric Python package on the GPU, on torch tensors.

1. drop-in: every kernel test block of kernels/*.py, with its file imported
   as `import tric as triton; import tric.language as tl` (the kernel files
   say `import triton`; the import is redirected), launched the Triton way,
   kernel[grid](*args, CONST=value, num_warps=w), outputs poisoned (NaN /
   0xAB bytes) first, and checked against the block's numpy reference with
   run_kernels' comparison;
2. same source, two compilers: every block run by real Triton and by
   tric.jit(<Triton's JITFunction>.fn) on the same inputs; the outputs a
   block names in `# triton_identical:` must agree bit for bit, the others
   exactly or within the block's tolerance (approximate math); skipped when
   Triton is not installed;
3. arguments that are not tensors: objects exposing only a tensor's
   __cuda_array_interface__, and a grid given as lambda META: ...; the host
   function add() of kernels/vector_add.py run unchanged;
4. a launch on a non-default, non-blocking torch stream, ordered behind work
   already queued on that stream;
5. on a machine with several GPUs, launches on each (following the
   tensors, under `with torch.cuda.device(d)`, from threads), tensors on two
   devices refused, and a two-process NCCL run over tric's outputs.

The module also serves bench/side_by_side.py: BlockRun turns one test block
into torch tensors plus the positional and keyword arguments of a Triton-style
launch. Environment: TRIC_LIBRARY (default: the package finds build/libtric.so
from the source tree), TRIC_SEED to repeat a run.

usage: test_python.py [FILE.py ...]     (default: kernels/*.py not starting with '_')
"""
import ast
import glob
import importlib.util
import os
import re
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
import run_kernels as rk  # noqa: E402  (test-block parser, argument generators, comparison)

# torch dtype attribute of each signature element type
TORCH_DTYPE_NAMES = {
    "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
    "u16": "uint16", "u32": "uint32", "u64": "uint64", "fp16": "float16", "bf16": "bfloat16",
    "fp32": "float32", "fp64": "float64", "fp8e4nv": "float8_e4m3fn", "fp8e5": "float8_e5m2",
}


def kernel_files(argv):
    return argv or sorted(p for p in glob.glob(os.path.join(ROOT, "kernels", "*.py"))
                          if not os.path.basename(p).startswith("_"))


def def_params(path, kernel):
    """The parameter names of `def kernel` in the file, read without importing it."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            return [a.arg for a in node.args.args]
    raise rk.TricError(f"no def {kernel} in {path}")


def import_kernel_file(path, as_triton=None):
    """Imports a kernel file as a fresh module. With as_triton (the tric package),
    its `import triton` / `import triton.language` get tric instead: the drop-in
    path a user takes by editing one import line."""
    stem = os.path.splitext(os.path.basename(path))[0]
    name = f"_{'tric' if as_triton else 'triton'}_kernels_{stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    if as_triton is None:
        spec.loader.exec_module(mod)
        return mod
    # every triton.* entry is put back afterwards: `from triton.language.extra
    # import libdevice` under the swap registers tric's submodules under
    # Triton's names, which would leave real Triton importing them later
    def is_triton(k):
        return k == "triton" or k.startswith("triton.")
    saved = {k: v for k, v in sys.modules.items() if is_triton(k)}
    sys.modules["triton"], sys.modules["triton.language"] = as_triton, as_triton.language
    try:
        spec.loader.exec_module(mod)
    finally:
        for k in [k for k in sys.modules if is_triton(k)]:
            del sys.modules[k]
        sys.modules.update(saved)
    return mod



def typed_view(torch, d, type_name):
    """The device argument's bytes as a tensor of its type and shape (an
    empty one, whose byte tensor torch cannot view, made anew)"""
    dtype = getattr(torch, TORCH_DTYPE_NAMES[type_name])
    if d.tensor.numel() == 0:
        return torch.empty(d.shape, dtype=dtype, device=d.tensor.device)
    return d.tensor.view(dtype).reshape(d.shape)

class DtypeConst:
    """A dtype constexpr ('dtype(fp8e4nv)'): the dtype object of whichever
    language the launched kernel belongs to (tric.language or triton.language)."""
    TL_NAMES = {"fp8e4nv": "float8e4nv", "fp8e5": "float8e5", "fp16": "float16", "bf16": "bfloat16",
                "fp32": "float32", "fp64": "float64", "i1": "int1", "i8": "int8", "i16": "int16",
                "i32": "int32", "i64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64"}

    def __init__(self, name):
        if name not in self.TL_NAMES:
            raise rk.TricError(f"dtype({name}): unknown type")
        self.name = name

    def value_for(self, kernel):
        lang = "tric.language" if type(kernel).__module__.startswith("tric") else "triton.language"
        return getattr(importlib.import_module(lang), self.TL_NAMES[self.name])


class ConstTuple:
    """A tuple of values passed to a parameter that is not tl.constexpr: its
    items as tl.constexpr of whichever language the launched kernel uses."""

    def __init__(self, items):
        self.items = items

    def value_for(self, kernel):
        lang = importlib.import_module("tric.language" if type(kernel).__module__.startswith("tric")
                                       else "triton.language")
        return tuple(ConstTuple(x).value_for(kernel) if isinstance(x, tuple) else lang.constexpr(x)
                     for x in self.items)


class DescArg:
    """A tensor descriptor argument (desc(...) in a block's args): the
    TensorDescriptor class of whichever library the launched kernel belongs
    to (tric.tools or triton.tools), over the block's device buffer."""

    def __init__(self, tensor, d):
        self.tensor, self.d = tensor, d

    def value_for(self, kernel):
        lib = "tric" if type(kernel).__module__.startswith("tric") else "triton"
        cls = importlib.import_module(lib + ".tools.tensor_descriptor").TensorDescriptor
        return cls(self.tensor, list(self.d.shape), list(self.d.strides), list(self.d.block),
                   padding="nan" if self.d.padding != 0 else "zero")


def constexpr_value(entry):
    """The Python value of a constexpr signature entry ('512', '2.0', 'True', 'BLOCK=512', 'dtype(fp16)')."""
    text = entry.split("=", 1)[1].strip() if "=" in entry else entry
    m = re.match(r"^dtype\((\w+)\)$", text)
    if m:
        return DtypeConst(m.group(1))
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise rk.TricError(f"signature entry '{entry}': not a literal constexpr value")


def scalar_value(type_name, v):
    return float(v) if type_name.startswith("fp") or type_name == "bf16" else int(v)


class BlockRun:
    """One test block made into torch tensors and a Triton-style launch.

    args_key / grid_key pick the block's lines ('args' and 'grid', or the
    benchmark's 'bench_args' and 'bench_grid'). Pointer arguments become
    typed torch tensors (viewing run_kernels.DeviceArg's byte buffers, so the
    reference can read them back exactly as the kernel saw them); runtime
    scalars become Python numbers; constexprs become keyword arguments.
    """

    def __init__(self, torch, path, block, rng, args_key="args", grid_key="grid"):
        for key in ("signature", "grid", "args", "check"):
            if key not in block:
                raise rk.TricError(f"block has no '# {key}:' line")
        self.torch, self.path, self.block = torch, path, block
        self.kernel = block["kernel"]
        self.num_warps = int(block.get("num_warps", 4))
        self.env_maker = rk.ArgEnv(rng)
        self.env = self.env_maker.names()
        with np.errstate(all="ignore"):
            order = rk.eval_args(block.get(args_key, block["args"]), self.env)
        self.checks = self._parse_checks(block["check"])
        self.outputs = [name for name, _ in self.checks]
        self._bind(def_params(path, self.kernel), rk.split_top(block["signature"], ","), order)
        grid = eval(block.get(grid_key, block["grid"]), self.env)
        self.grid = (int(grid),) if isinstance(grid, (int, np.integer)) else tuple(int(g) for g in grid)
        missing = [o for o in self.outputs if o not in self.device]
        if missing:
            raise rk.TricError(f"check names {', '.join(missing)}, not pointer arguments")

    @staticmethod
    def _parse_checks(text):
        checks = []
        for c in rk.split_top(text, ";"):
            m = re.match(r"^(\w+)\s*==\s*(.+)$", c, re.S)
            if not m:
                raise rk.TricError(f"check '{c}' is not 'name == expression'")
            checks.append(m.groups())
        return checks

    def _bind(self, params, entries, order):
        """Pairs the def's parameters with signature entries and the args' values."""
        if len(params) != len(entries):
            raise rk.TricError(f"{self.kernel} has {len(params)} parameters, the signature {len(entries)} entries")
        torch = self.torch
        self.args, self.kwargs = [], {}
        self.device, self.tensors, self.types = {}, {}, {}
        names = iter(order)
        by_keyword = False   # once a constexpr is passed, later arguments go by keyword too
        for param, entry in zip(params, entries):
            m = rk._SIG_TYPE.match(entry)
            desc = rk._SIG_DESC.match(entry)
            if entry.strip().startswith("(") and "=" not in entry and not by_keyword:
                if rk.tuple_has_types(entry):   # a tuple argument: its value from args, as given
                    name = next(names, None)
                    if name is None:
                        raise rk.TricError(f"args gives fewer values than {self.kernel} has runtime parameters")
                    self.args.append(tuple(self.env[name]))
                else:   # values only: tl.constexpr items, as Triton's tests pass block shapes
                    self.args.append(ConstTuple(constexpr_value(entry)))
                continue
            if desc and not by_keyword:   # a tensor descriptor over this name's buffer
                name = next(names, None)
                if name is None:
                    raise rk.TricError(f"args gives fewer values than {self.kernel} has runtime parameters")
                d, type_name = self.env[name], desc.group(1)
                self.device[name] = rk.DeviceArg(torch, d.array, type_name, poison=False)
                self.types[name] = type_name
                self.tensors[name] = typed_view(torch, self.device[name], type_name)
                self.args.append(DescArg(self.tensors[name], d))
                continue
            if not m or "=" in entry:
                self.kwargs[param] = constexpr_value(entry)
                by_keyword = True
                continue
            is_ptr, type_name = bool(m.group(1)), m.group(2)
            is_one = m.group(3) == "1" and not is_ptr   # specialized to 1: no value in args (as in tric --args)
            name = None if is_one else next(names, None)
            if is_one:
                value = 1
            elif name is None:
                raise rk.TricError(f"args gives fewer values than {self.kernel} has runtime parameters")
            elif is_ptr:
                d = rk.DeviceArg(torch, self.env[name], type_name, poison=False)
                self.device[name], self.types[name] = d, type_name
                self.tensors[name] = typed_view(torch, d, type_name)
                value = self.tensors[name]
            else:
                value = scalar_value(type_name, self.env[name])
            if by_keyword:
                self.kwargs[param] = value
            else:
                self.args.append(value)
        if next(names, None) is not None:
            raise rk.TricError(f"args gives more values than {self.kernel} has runtime parameters")

    def poison(self):
        """Outputs made by empty() to NaN (floats) or 0xAB bytes (integers), so a store that never
        happens shows; others (zeros(...) that atomics add into, inputs a kernel updates) keep their
        values."""
        for name in self.outputs:
            if id(self.env[name]) not in self.env_maker.outputs:
                continue
            if self.types[name] in rk.FLOAT_TYPES:
                self.tensors[name].fill_(float("nan"))
            else:
                self.device[name].tensor.fill_(0xAB)

    def launch(self, kernel, grid=None, args=None, stream_sync=True):
        """kernel[grid](*args, **constexprs, num_warps=w), the way Triton code calls it."""
        args = [a.value_for(kernel) if isinstance(a, (DescArg, ConstTuple)) else a
                for a in (self.args if args is None else args)]
        kernel[grid or self.grid](*args, **self.kwargs_for(kernel), num_warps=self.num_warps)
        if stream_sync:
            self.torch.cuda.synchronize()

    def kwargs_for(self, kernel):
        """The constexpr keyword arguments, dtypes as kernel's language has them."""
        return {k: v.value_for(kernel) if isinstance(v, DtypeConst) else v for k, v in self.kwargs.items()}

    def save(self):
        """Every buffer's contents, for restore()."""
        return {name: d.tensor.clone() for name, d in self.device.items()}

    def restore(self, saved):
        for name, t in saved.items():
            self.device[name].tensor.copy_(t)

    def snapshot(self):
        return {name: self.tensors[name].clone() for name in self.outputs}

    def check(self):
        """Problems (strings) of the outputs against the block's numpy reference."""
        ref_env = dict(self.env)
        for name, d in self.device.items():
            if name not in self.outputs:
                ref_env[name] = d.read()   # inputs exactly as the kernel saw them
        tol = rk.parse_tol(self.block.get("tol"), self.outputs)
        problems = []
        for name, expr in self.checks:
            t = self.types[name]
            with np.errstate(all="ignore"):   # references of special values overflow on purpose
                msg = rk.compare(self.device[name].read(), eval(expr, ref_env), t,
                                 tol.get(name, rk.DEFAULT_TOL.get(t, 0)))
            if msg:
                problems.append(f"{name}: {msg}")
        return problems

    def tolerance(self, name):
        tol = rk.parse_tol(self.block.get("tol"), self.outputs)
        return tol.get(name, rk.DEFAULT_TOL.get(self.types[name], 0))

    def nbytes(self):
        """Bytes of all pointer arguments: what the kernel moves if it reads or writes each once."""
        return sum(t.numel() * t.element_size() for t in self.tensors.values())


def bitwise_equal(torch, a, b, type_name):
    if type_name in rk.FLOAT_TYPES:   # NaN == NaN here, and -0.0 != 0.0
        ints = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[a.element_size()]
        return torch.equal(a.view(ints), b.view(ints))
    return torch.equal(a, b)


def compare_tensors(torch, got, want, type_name, tol):
    """(problem or None, bit-identical?) of two device tensors of one output, on the GPU."""
    if bitwise_equal(torch, got, want, type_name):
        return None, True
    if type_name not in rk.FLOAT_TYPES:
        bad = int((got != want).sum())
        return f"{bad} of {got.numel()} integers differ", False
    g, w = got.double(), want.double()
    nan_g, nan_w = torch.isnan(g), torch.isnan(w)
    if not torch.equal(nan_g, nan_w):
        return f"NaN in {int((nan_g != nan_w).sum())} places in one output only", False
    ok = ~nan_w
    diff = torch.linalg.vector_norm((g - w)[ok]).item()
    norm = torch.linalg.vector_norm(w[ok]).item()
    rel = diff / norm if norm > 0 else diff
    if rel > tol:
        return f"relative difference {rel:.3g} > {tol:g}", False
    return None, False


def compare_outputs(torch, run, got, want):
    """Problems and the outputs that were not bit-identical, between two snapshots."""
    problems, inexact = [], []
    for name in run.outputs:
        msg, exact = compare_tensors(torch, got[name], want[name], run.types[name], run.tolerance(name))
        if msg:
            problems.append(f"{name}: {msg}")
        elif not exact:
            inexact.append(name)
    return problems, inexact


# ---------------------------------------------------------------- the tests


class Results:
    def __init__(self):
        self.npass = self.nfail = self.nskip = 0
        self.rows = []

    def skip(self, label, why):
        self.nskip += 1
        print(f"[SKIP] {label}: {why}")
        self.rows.append((label, "skip", why))

    def record(self, label, problems, note=""):
        if problems:
            self.nfail += 1
            print(f"[FAIL] {label}")
            for p in problems:
                print("    " + str(p).replace("\n", "\n    "))
        else:
            self.npass += 1
            print(f"[PASS] {label}" + (f"  ({note})" if note else ""))
        self.rows.append((label, "FAIL" if problems else "pass", note))
        sys.stdout.flush()


def each_block(files):
    for path in files:
        for i, block in enumerate(rk.parse_blocks(path), 1):
            yield path, i, block, f"{os.path.basename(path)}#{i} {block['kernel']}"


def block_rng(seed, path, i):
    return np.random.default_rng([seed, i, sum(map(ord, os.path.basename(path)))])


def test_drop_in(torch, tric, files, seed, res):
    """Each block through the kernel file imported with tric standing in for triton."""
    # tensor maps made in a kernel go to scratch from the allocator, as in Triton
    tric.set_allocator(lambda size, align, stream: torch.empty(size, device="cuda", dtype=torch.int8))
    for path, i, block, label in each_block(files):
        try:
            mod = import_kernel_file(path, as_triton=tric)
            run = BlockRun(torch, path, block, block_rng(seed, path, i))
            run.poison()
            run.launch(getattr(mod, run.kernel))
            problems = run.check()
        except Exception as e:   # a compile or launch error fails this block only
            problems = [f"{type(e).__name__}: {e}"]
        res.record(f"drop-in {label}", problems)


def test_same_source(torch, tric, triton, files, seed, res):
    """Each block by real Triton and by tric.jit(fn) of the same function, same inputs."""
    # Triton's descriptors made in a kernel (tl.make_tensor_descriptor) take scratch from its allocator
    triton.set_allocator(lambda size, align, stream: torch.empty(size, device="cuda", dtype=torch.int8))
    for path, i, block, label in each_block(files):
        note = ""
        try:
            mod = import_kernel_file(path)
            jit_fn = getattr(mod, block["kernel"])
            run = BlockRun(torch, path, block, block_rng(seed + 1, path, i))
            run.poison()
            start = run.save()   # kernels may update inputs in place (atomics): tric starts from the same state
            try:
                run.launch(jit_fn)
            except Exception as e:   # Triton's limits are not tric's failures
                res.skip(f"same source {label}", f"Triton cannot run it: {type(e).__name__}: {str(e)[:200]}")
                continue
            want = run.snapshot()
            # "# triton_differs: NAME ..." (a reason after ' -- '): outputs where
            # Triton departs from the reference and tric does not
            differs = block.get("triton_differs", "").split(" -- ")[0].split()
            problems = [f"triton: {p}" for p in run.check() if p.split(":")[0] not in differs]
            run.restore(start)
            run.launch(tric.jit(jit_fn.fn))
            got = run.snapshot()
            diff, inexact = compare_outputs(torch, run, got, want)
            problems += [f"tric vs triton: {p}" for p in diff if p.split(":")[0] not in differs]
            if differs:
                note = f"Triton differs in {', '.join(differs)} by design of the block; "
            # "# triton_identical: NAME ...": outputs that must equal Triton's bit
            # for bit (same element math, same reduction order)
            identical = [n for n in block.get("triton_identical", "").split(" -- ")[0].split() if n in inexact]
            if identical:
                problems.append(f"must be bit-identical to Triton's; differs in {', '.join(identical)}")
            note += f"within tolerance, not bit-identical: {', '.join(inexact)}" if inexact else "bit-identical"
        except Exception as e:
            problems = [f"{type(e).__name__}: {e}"]
        res.record(f"same source {label}", problems, note)


class CudaArray:
    """Only __cuda_array_interface__, as CuPy or Numba arrays would offer it."""

    def __init__(self, tensor):
        self.__cuda_array_interface__ = tensor.__cuda_array_interface__
        self.keep = tensor


def vector_add_fn(tric):
    mod = import_kernel_file(os.path.join(ROOT, "kernels", "vector_add.py"), as_triton=tric)
    return mod.add_kernel


def test_cuda_array_interface(torch, tric, seed, res):
    torch.manual_seed(seed)
    problems = []
    try:
        kernel = vector_add_fn(tric)
        n = 100003
        x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
        out = torch.full((n,), float("nan"), device="cuda")
        kernel[lambda meta: (tric.cdiv(n, meta["BLOCK_SIZE"]),)](CudaArray(x), CudaArray(y), CudaArray(out), n,
                                                                  BLOCK_SIZE=512)
        torch.cuda.synchronize()
        if not torch.equal(out, x + y):
            bad = int((out != x + y).sum())
            problems.append(f"{bad} of {n} elements wrong with __cuda_array_interface__ arguments")
    except Exception as e:
        problems = [f"{type(e).__name__}: {e}"]
    res.record("__cuda_array_interface__ arguments, lambda grid", problems)


def test_pinned_host(torch, tric, seed, res):
    """Pinned host tensors are read and written by the kernel through unified
    addressing, as in Triton; a plain CPU tensor is refused."""
    torch.manual_seed(seed)
    problems = []
    try:
        kernel = vector_add_fn(tric)
        n = 4099
        x = torch.rand(n, pin_memory=True)
        y = torch.rand(n, device="cuda")
        out = torch.full((n,), float("nan"), pin_memory=True)
        kernel[(tric.cdiv(n, 512),)](x, y, out, n, BLOCK_SIZE=512)
        torch.cuda.synchronize()
        if not torch.equal(out, x + y.cpu()):
            problems.append(f"{int((out != x + y.cpu()).sum())} of {n} elements wrong with pinned tensors")
        try:
            kernel[(1,)](torch.rand(n), y, y, n, BLOCK_SIZE=512)
            problems.append("a plain CPU tensor was accepted")
        except ValueError:
            pass
    except Exception as e:
        problems = [f"{type(e).__name__}: {e}"]
    res.record("pinned host tensors (unified addressing)", problems)


def test_host_code(torch, tric, seed, res):
    """vector_add.py's own host function add(), which calls add_kernel[lambda meta: ...]
    and triton.cdiv, run unchanged with tric standing in for triton."""
    torch.manual_seed(seed)
    problems = []
    try:
        mod = import_kernel_file(os.path.join(ROOT, "kernels", "vector_add.py"), as_triton=tric)
        x, y = torch.rand(98432 + 5, device="cuda"), torch.rand(98432 + 5, device="cuda")
        out = mod.add(x, y)
        torch.cuda.synchronize()
        if not torch.equal(out, x + y):
            problems.append(f"{int((out != x + y).sum())} of {x.numel()} elements wrong")
    except Exception as e:
        problems = [f"{type(e).__name__}: {e}"]
    res.record("host code of kernels/vector_add.py (add())", problems)


def test_host_descriptors(torch, tric, seed, res):
    """kernels/block_ptr.py's host_desc_matmul_kernel on TensorDescriptors
    made from torch tensors: shapes multiple of 16 and not (edges padded with
    zeros on load, clipped on store), against float64."""
    from tric.tools.tensor_descriptor import TensorDescriptor
    torch.manual_seed(seed)
    problems = []
    try:
        mod = import_kernel_file(os.path.join(ROOT, "kernels", "block_ptr.py"), as_triton=tric)
        for M, N, K, bm, bn, bk, warps in ((256, 128, 256, 128, 64, 64, 4), (100, 72, 80, 64, 64, 32, 4),
                                           (512, 512, 1024, 128, 128, 64, 8)):
            a = torch.randn(M, K, device="cuda", dtype=torch.float16)
            b = torch.randn(N, K, device="cuda", dtype=torch.float16)
            c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
            a_desc = TensorDescriptor.from_tensor(a, [bm, bk])
            b_desc = TensorDescriptor.from_tensor(b, [bn, bk])
            c_desc = TensorDescriptor.from_tensor(c, [bm, bn])
            mod.host_desc_matmul_kernel[(tric.cdiv(M, bm), tric.cdiv(N, bn))](a_desc, b_desc, c_desc, K, BLOCK_K=bk,
                                                                               num_warps=warps)
            torch.cuda.synchronize()
            ref = a.double() @ b.double().T
            err = float((c.double() - ref).norm() / ref.norm())
            if not err <= 1e-2:
                problems.append(f"{M}x{N}x{K}: relative error {err:.3g}")
    except Exception as e:
        problems = [f"{type(e).__name__}: {e}"]
    res.record("host TensorDescriptor matmul", problems)


def test_stream(torch, tric, seed, res):
    """The launch must go on torch's current stream: on a non-blocking stream it
    follows a long sleep and the copy that fills x; launched anywhere else it
    would read x before the copy and miss."""
    torch.manual_seed(seed)
    problems = []
    try:
        kernel = vector_add_fn(tric)
        n = 1 << 20
        src, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
        x = torch.zeros(n, device="cuda")
        out = torch.full((n,), float("nan"), device="cuda")
        kernel[(tric.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)   # compiled and loaded before the test
        out.fill_(float("nan"))
        torch.cuda.synchronize()
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            torch.cuda._sleep(200_000_000)   # about 0.1 s of GPU clock cycles
            x.copy_(src)
            kernel[(tric.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
        early_done = side.query()
        side.synchronize()
        if early_done:
            problems.append("the side stream was idle right after the launch: the sleep did not hold it")
        if not torch.equal(out, src + y):
            problems.append(f"{int((out != src + y).sum())} of {n} elements wrong: not launched on the current stream?")
    except Exception as e:
        problems = [f"{type(e).__name__}: {e}"]
    res.record("launch on a non-default torch stream", problems)


def _add_on(torch, tric, kernel, d, n=100003, guard=False):
    """x + y on cuda:d, launched under torch's current device (or, with
    guard, under `with torch.cuda.device(d)`); the problem, or None."""
    x, y = torch.rand(n, device=f"cuda:{d}"), torch.rand(n, device=f"cuda:{d}")
    out = torch.full((n,), float("nan"), device=f"cuda:{d}")
    if guard:
        with torch.cuda.device(d):
            kernel[(tric.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    else:
        kernel[(tric.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    torch.cuda.synchronize(d)
    if not torch.equal(out, x + y):
        return f"cuda:{d}: {int((out != x + y).sum())} of {n} elements wrong"
    return None


def _rank_main(rank, world, port, result):
    """One process of a torch.distributed-style run: its own GPU, a tric
    kernel there, then an all-reduce of the outputs over NCCL."""
    import torch
    import torch.distributed as dist
    import tric
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    try:
        kernel = vector_add_fn(tric)
        n = 1 << 20
        g = torch.Generator(device="cuda").manual_seed(1234 + rank)
        x = torch.rand(n, device="cuda", generator=g)
        out = torch.full((n,), float("nan"), device="cuda")
        kernel[(tric.cdiv(n, 1024),)](x, x, out, n, BLOCK_SIZE=1024)
        dist.all_reduce(out)
        want = torch.zeros(n, device="cuda")
        for r in range(world):
            gr = torch.Generator(device="cuda").manual_seed(1234 + r)
            want += 2 * torch.rand(n, device="cuda", generator=gr)
        result.put((rank, bool(torch.allclose(out, want, rtol=1e-6, atol=1e-6))))
    finally:
        dist.destroy_process_group()


def test_devices(torch, tric, seed, res):
    """Every GPU: the same kernel on tensors of each device, with torch's
    current device elsewhere (the launch follows the tensors), under `with
    torch.cuda.device(d)`, from threads that set their own device, and back
    on the first; tensors on two devices refused; a torch.distributed-style
    run, one process per GPU, all-reducing tric's outputs over NCCL."""
    import threading
    n_dev = torch.cuda.device_count()
    label = "launches on every device (%d)" % n_dev
    if n_dev < 2:
        res.skip(label, "one GPU")
        return
    torch.manual_seed(seed)
    problems = []
    try:
        kernel = vector_add_fn(tric)
        for d in list(range(n_dev)) + [0]:
            problems += [p for p in (_add_on(torch, tric, kernel, d), _add_on(torch, tric, kernel, d, guard=True)) if p]

        def worker(d):
            try:
                torch.cuda.set_device(d)
                p = _add_on(torch, tric, kernel, d, 1 << 20)
                if p:
                    problems.append("thread: " + p)
            except Exception as e:
                problems.append(f"thread on cuda:{d}: {type(e).__name__}: {e}")
        threads = [threading.Thread(target=worker, args=(d,)) for d in reversed(range(n_dev))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        x0, x1 = torch.rand(1000, device="cuda:0"), torch.rand(1000, device="cuda:1")
        out = torch.full((1000,), float("nan"), device="cuda:1")
        try:
            kernel[(1,)](x1, x0, out, 1000, BLOCK_SIZE=1024)
            problems.append("tensors on cuda:1 and cuda:0 were not refused")
        except ValueError as e:
            if "is on cuda:0 but 'x_ptr' is on cuda:1" not in str(e):
                problems.append(f"wrong message: {e}")
        torch.cuda.synchronize(1)
        if not bool(torch.isnan(out).all()):
            problems.append("the refused launch wrote its output")
        import multiprocessing as mp
        import socket
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        ctx = mp.get_context("spawn")
        result = ctx.Queue()
        procs = [ctx.Process(target=_rank_main, args=(r, n_dev, port, result)) for r in range(n_dev)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(300)
        ranks = {}
        while not result.empty():
            r, ok = result.get()
            ranks[r] = ok
        if sorted(ranks) != list(range(n_dev)) or not all(ranks.values()):
            problems.append(f"distributed run: ranks {ranks}, exit codes {[p.exitcode for p in procs]}")
    except Exception as e:
        problems = [f"{type(e).__name__}: {e}"]
    res.record(label, problems)


def main(argv):
    import torch

    if not torch.cuda.is_available():
        print("test_python: no CUDA device")
        return 1
    torch.cuda.init()
    import tric

    files = kernel_files(argv)
    seed = int(os.environ.get("TRIC_SEED", int(time.time() * 1000) % 2**31))
    print(f"test_python: seed {seed} (TRIC_SEED={seed} repeats this run), tric from {os.path.dirname(tric.__file__)}")
    res = Results()
    test_drop_in(torch, tric, files, seed, res)
    test_cuda_array_interface(torch, tric, seed, res)
    test_host_code(torch, tric, seed, res)
    test_pinned_host(torch, tric, seed, res)
    test_host_descriptors(torch, tric, seed, res)
    test_stream(torch, tric, seed, res)
    test_devices(torch, tric, seed, res)
    try:
        import triton
    except ImportError:
        print("note: Triton is not installed: skipping the same-source comparison")
    else:
        print(f"test_python: Triton {triton.__version__}")
        test_same_source(torch, tric, triton, files, seed, res)
    print(f"{res.npass} passed, {res.nfail} failed" + (f", {res.nskip} skipped" if res.nskip else ""))
    return 1 if res.nfail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
