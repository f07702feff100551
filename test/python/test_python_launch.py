"""Launches, autotuning and do_bench without a GPU, under the fake CUDA
driver (fake_cuda.c), which records each launch: the grid, the block, the
stream and every parameter's bytes as the kernel would receive them. Also
times the Python launch path (printed; the GPU number comes from bench/)."""
import contextlib
import contextvars
import ctypes
import io
import os
import struct
import sys
import time
import types

import tric_testlib as T
from tric_testlib import check, check_eq, raises

T.under_fake_driver()

import tric as triton  # noqa: E402
import tric.language as tl  # noqa: E402

fake = ctypes.CDLL(os.environ["TRIC_FAKE_CUDA"])


def last_launch(param_bytes):
    grid, block = (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)()
    stream = ctypes.c_void_p()
    params = (ctypes.c_uint64 * 64)()
    n = fake.fake_last_launch(grid, block, ctypes.byref(stream), params, 64)
    return tuple(grid), block[0], stream.value, [params[i] for i in range(n)]


def expect_params(*bytes_):
    fake.fake_set_param_bytes((ctypes.c_int * len(bytes_))(*bytes_), len(bytes_))


def launches():
    return fake.fake_launch_count()


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


KERNELS = '''import tric as triton
import tric.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr = 256):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def scalars_kernel(out_ptr, a, b, scale, flag, big, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = (offs + a + b + big).to(tl.float32) * scale
    tl.store(out_ptr + offs, v, mask=(offs < BLOCK) & (flag != 0))


@triton.jit
def desc_kernel(a_desc, out_ptr, k):
    tl.store(out_ptr + tl.arange(0, 16), a_desc.load([k, 0, 0]).sum(0).sum(0))


@triton.jit
def desc2_kernel(a_desc, out_ptr):
    tl.store(out_ptr + tl.arange(0, 16), a_desc.load([0, 0]).sum(0))


@triton.jit
def make_desc_kernel(x_ptr, n):
    d = tl.make_tensor_descriptor(x_ptr, shape=[n, n], strides=[n, 1], block_shape=[16, 16])
    acc = tl.zeros((16, 16), tl.float32)
    for k in range(0, n, 16):
        acc = tl.dot(d.load([0, k]), d.load([k, 0]), acc)
    d.store([0, 0], acc)
'''


def test_packing():
    m = T.write_module(KERNELS)
    x, y, out = T.FakeTensor(0x10000), T.FakeTensor(0x20000), T.FakeTensor(0x30000)
    expect_params(8, 8, 8, 4)
    c = m.add_kernel[(7,)](x, y, out, 1000)
    check_eq(last_launch(4), ((7, 1, 1), 128, None, [0x10000, 0x20000, 0x30000, 1000]), "pointers and an i32")
    m.add_kernel[(3, 2)](x, y, out, -5, num_warps=8)
    check_eq(last_launch(4), ((3, 2, 1), 256, None, [0x10000, 0x20000, 0x30000, 0xFFFFFFFB]),
             "missing grid dims are 1; num_warps sets the block; negative i32")
    # num_ctas: a cluster hint on sm_90+; each program still runs as one CTA
    m.add_kernel[(3, 2)](x, y, out, 5, num_warps=8, num_ctas=2)
    check_eq(last_launch(4), ((3, 2, 1), 256, None, [0x10000, 0x20000, 0x30000, 5]), "num_ctas=2 on sm_90a")
    e = raises(ValueError, lambda: m.add_kernel[(1,)](x, y, out, 5, num_ctas=3))
    check(e and "num_ctas=3: a power of two" in str(e), "num_ctas=3 refused: %s" % e)
    os.environ["TRIC_ARCH"] = "sm_80"
    try:
        e = raises(ValueError, lambda: m.add_kernel[(1,)](x, y, out, 5, num_ctas=2))
        check(e and "num_ctas=2 needs sm_90 or later (clusters); the kernel is for sm_80" in str(e),
              "num_ctas=2 refused on sm_80: %s" % e)
    finally:
        del os.environ["TRIC_ARCH"]
    check_eq(c.n_regs, 40, "n_regs from cuFuncGetAttribute")
    check_eq(c.n_spills, 2, "n_spills = LOCAL_SIZE_BYTES / 4")

    # a CUDA-array-interface pointer and numpy-like scalars through the slow path
    arr = T.FakeCudaArray(0x40000, "<f4")
    m.add_kernel[(1,)](arr, y, out, 1000)
    check_eq(last_launch(4)[3], [0x40000, 0x20000, 0x30000, 1000], "__cuda_array_interface__ pointer")

    # i32, i64 (:16 dropped by do-not-care), fp32 bits, i1, u64
    expect_params(8, 4, 4, 4, 1, 8)
    m.scalars_kernel[(1,)](out, 7, -3, 1.5, True, 2**40 + 3, BLOCK=64)
    check_eq(last_launch(6)[3], [0x30000, 7, 0xFFFFFFFD, f32_bits(1.5), 1, 2**40 + 3], "scalars")
    sig = list(m.scalars_kernel.cache.values())[0].metadata.signature
    check_eq(sig, "*fp32:16, i32, i32, fp32, i1, i64, 64", "their signature")
    m.scalars_kernel[(1,)](out, 7, -3, -0.25, False, 2**63 + 5, BLOCK=64)
    check_eq(last_launch(6)[3], [0x30000, 7, 0xFFFFFFFD, f32_bits(-0.25), 0, 2**63 + 5], "u64 and false")
    # an argument equal to 1 is baked in: one parameter fewer
    expect_params(8, 4, 4, 1, 8)
    m.scalars_kernel[(1,)](out, 1, 9, 2.0, True, 17, BLOCK=64)
    check_eq(last_launch(5)[3], [0x30000, 9, f32_bits(2.0), 1, 17], "a == 1 argument is not passed")


def test_jit_cache():
    """The cubin the driver's JIT makes is kept in the disk cache: a kernel
    loaded again later (here: a new module object with the same source, as
    in a new process) loads it and the JIT does not run; a damaged file is
    refused by its checksum and made again; TRIC_CACHE_DIR=off JITs
    directly."""
    import importlib.util
    path = T.write_module(KERNELS.replace("BLOCK: tl.constexpr = 256", "BLOCK: tl.constexpr = 512")).__file__

    class Again:   # the same file imported afresh: a new kernel object, the same PTX (which names the file)
        count = 0

        @property
        def add_kernel(self):
            Again.count += 1
            spec = importlib.util.spec_from_file_location("tric_jit_cache_%d" % Again.count, path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            return mod.add_kernel

    x, y, out = T.FakeTensor(0x10000), T.FakeTensor(0x20000), T.FakeTensor(0x30000)
    expect_params(8, 8, 8, 4)
    links = fake.fake_link_count()
    cache = os.environ["TRIC_CACHE_DIR"]
    before = set(os.listdir(cache))
    Again().add_kernel[(1,)](x, y, out, 1000)
    check_eq(fake.fake_link_count(), links + 1, "the first load JITs through the linker")
    made = sorted(set(os.listdir(cache)) - before)
    cubins = [f for f in made if f.startswith("jit-") and f.endswith("-sm90-13000.cubin")]
    check_eq(len(cubins), 1, "one cubin kept, named by the device's arch and the driver's version: %s" % made)
    n = launches()
    Again().add_kernel[(1,)](x, y, out, 1000)
    check_eq(fake.fake_link_count(), links + 1, "loaded again: the kept cubin, no JIT")
    check_eq(launches(), n + 1, "and launched")
    for f in cubins:
        with open(os.path.join(cache, f), "r+b") as fh:
            fh.seek(-2, os.SEEK_END)
            fh.write(b"?")
    Again().add_kernel[(1,)](x, y, out, 1000)
    check_eq(fake.fake_link_count(), links + 2, "a damaged cubin is refused and made again")
    Again().add_kernel[(1,)](x, y, out, 1000)
    check_eq(fake.fake_link_count(), links + 2, "the rewritten one is read")
    os.environ["TRIC_CACHE_DIR"] = "off"
    try:
        Again().add_kernel[(1,)](x, y, out, 1000)
        check_eq(fake.fake_link_count(), links + 2, "cache off: the plain JIT, no linker")
    finally:
        os.environ["TRIC_CACHE_DIR"] = cache


def test_module_api():
    """tric_module_load_ptx / _cubin and tric_module_function: a kernel made
    ahead of time launches like a compiled one (block from .maxntid or
    num_warps, shared memory as given, parameters from the PTX's .entry)."""
    from tric import _lib
    lib = _lib.lib
    vp, c_int, c_size = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
    err = ctypes.c_char_p()
    lib.tric_module_load_ptx.argtypes = [ctypes.c_char_p, ctypes.POINTER(vp), ctypes.POINTER(ctypes.c_char_p)]
    lib.tric_module_load_cubin.argtypes = [ctypes.c_char_p, c_size, ctypes.POINTER(vp),
                                           ctypes.POINTER(ctypes.c_char_p)]
    lib.tric_module_function.argtypes = [vp, ctypes.c_char_p, c_int, c_int, ctypes.POINTER(vp),
                                         ctypes.POINTER(ctypes.c_char_p)]
    lib.tric_module_free.argtypes = [vp]
    lib.tric_launch.argtypes = [vp, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.POINTER(vp), vp,
                                ctypes.POINTER(ctypes.c_char_p)]
    lib.tric_launch_packed.argtypes = [vp, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, vp,
                                       ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_char_p)]
    lib.tric_kernel_num_params.argtypes = [vp]
    lib.tric_kernel_free.argtypes = [vp]
    m = T.write_module(KERNELS)
    x, y, out = T.FakeTensor(0x10000), T.FakeTensor(0x20000), T.FakeTensor(0x30000)
    expect_params(8, 8, 8, 4)
    ptx = m.add_kernel.warmup(x, y, out, 1000, grid=(1,), num_warps=2).asm["ptx"]
    mod, k = vp(), vp()
    check_eq(lib.tric_module_load_ptx(ptx.encode(), ctypes.byref(mod), ctypes.byref(err)), 0, "PTX loaded")
    check_eq(lib.tric_module_function(mod, b"add_kernel", 0, 0, ctypes.byref(k), ctypes.byref(err)), 0,
             "its kernel: %s" % err.value)
    lib.tric_module_free(mod)   # the kernel keeps its own copy
    check_eq(lib.tric_kernel_num_params(k), 4, "parameters from the .entry")
    vals = [ctypes.c_uint64(0x10000), ctypes.c_uint64(0x20000), ctypes.c_uint64(0x30000), ctypes.c_int32(77)]
    args = (vp * 4)(*[ctypes.cast(ctypes.byref(v), vp) for v in vals])
    check_eq(lib.tric_launch(k, 5, 1, 1, args, None, ctypes.byref(err)), 0, "launched: %s" % err.value)
    check_eq(last_launch(4), ((5, 1, 1), 64, None, [0x10000, 0x20000, 0x30000, 77]), "block from .maxntid")
    slots = (ctypes.c_uint64 * 4)(0x10000, 0x20000, 0x30000, 78)
    check_eq(lib.tric_launch_packed(k, 2, 1, 1, None, slots, ctypes.byref(err)), 0, "packed: %s" % err.value)
    check_eq(last_launch(4)[3], [0x10000, 0x20000, 0x30000, 78], "packed, sizes from the .entry")
    lib.tric_kernel_free(k)
    check_eq(lib.tric_module_function(None, b"x", 0, 0, ctypes.byref(k), ctypes.byref(err)), _lib.TRIC_ERR_ARG,
             "NULL module")
    check_eq(lib.tric_module_load_ptx(ptx.encode(), ctypes.byref(mod), None), 0, "again")
    st = lib.tric_module_function(mod, b"nope", 0, 0, ctypes.byref(k), ctypes.byref(err))
    check(st == _lib.TRIC_ERR_ARG and b"has no .entry nope" in err.value, "an unknown entry: %s" % err.value)
    lib.tric_module_free(mod)
    st = lib.tric_module_load_cubin(b"not an elf image" * 8, 128, ctypes.byref(mod), ctypes.byref(err))
    check(st == _lib.TRIC_ERR_ARG and b"not an ELF image" in err.value, "not a cubin: %s" % err.value)
    image = b"\x7fELF" + b"x" * 60 + b" .entry add_kernel"   # the fake driver takes any image naming an entry
    check_eq(lib.tric_module_load_cubin(image, len(image), ctypes.byref(mod), ctypes.byref(err)), 0, "a cubin")
    check_eq(lib.tric_module_function(mod, b"add_kernel", 8, 4096, ctypes.byref(k), ctypes.byref(err)), 0,
             "its kernel")
    lib.tric_module_free(mod)
    check_eq(lib.tric_launch(k, 3, 2, 1, args, None, ctypes.byref(err)), 0, "launched: %s" % err.value)
    check_eq(last_launch(4)[:2], ((3, 2, 1), 256), "block from num_warps")
    st = lib.tric_launch_packed(k, 2, 1, 1, None, slots, ctypes.byref(err))
    check(st == _lib.TRIC_ERR_ARG and b"whose parameters tric cannot see" in err.value, "packed refused: %s" % err.value)
    lib.tric_kernel_free(k)


def test_tensor_descriptor():
    """A descriptor argument is its base, each dim of its shape (i32) and
    each stride but the last (i64), in that order."""
    m = T.write_module(KERNELS)
    a = T.FakeTensor(0x50000)
    a.shape, a.stride = [3, 40, 16], lambda: [640, 16, 1]
    d = triton.tools.tensor_descriptor.TensorDescriptor.from_tensor(a, [1, 8, 16])
    expect_params(8, 4, 4, 4, 8, 8, 8, 4)
    c = m.desc_kernel[(1,)](d, T.FakeTensor(0x60000), 2)
    check_eq(last_launch(8)[3], [0x50000, 3, 40, 16, 640, 16, 0x60000, 2], "the descriptor's parts")
    check_eq(c.metadata.signature, "tensordesc<fp32[1, 8, 16]>:16, *fp32:16, i32", ":16: the last dim is 16")
    a.shape, a.stride = [3, 40, 12], lambda: [480, 12, 1]
    m.desc_kernel[(1,)](triton.tools.tensor_descriptor.TensorDescriptor.from_tensor(a, [1, 8, 16]), a, 0)
    check_eq(list(m.desc_kernel.cache.values())[-1].metadata.signature, "tensordesc<fp32[1, 8, 16]>, *fp32:16, i32:16",
             "no :16: the last dim is 12")
    # a 2-D block TMA can move: on sm_90 its tensor map is one more parameter, 128 bytes the driver
    # encodes at each launch (the fake driver's encoding starts with the address)
    b = T.FakeTensor(0x70000)
    b.shape, b.stride = [40, 16], lambda: [16, 1]
    expect_params(8, 4, 4, 8, 128, 8)
    c = m.desc2_kernel[(1,)](triton.tools.tensor_descriptor.TensorDescriptor.from_tensor(b, [8, 16]), a)
    check_eq(last_launch(6)[3], [0x70000, 40, 16, 16, 0x70000, 0x50000], "a tensor map after the strides")
    check_eq([(p.kind, p.type) for p in c.params][4], (3, "tensordesc<fp32[8, 16]>"), "its kind and type")
    # a descriptor made in the kernel: its tensor map goes to global scratch from the allocator
    x = T.FakeTensor(0x80000)
    e = raises(RuntimeError, lambda: m.make_desc_kernel[(3,)](x, 64))
    check("set_allocator" in str(e), "no allocator: Triton's error")
    asked = []
    triton.set_allocator(lambda size, align, stream: asked.append((size, align, stream)) or T.FakeTensor(0x90000))
    try:
        expect_params(8, 4, 8)
        m.make_desc_kernel[(3,)](x, 64)
    finally:
        triton.set_allocator(None)
    check_eq(last_launch(3)[3], [0x80000, 64, 0x90000], "the scratch, last")
    check_eq(asked, [(3 * 128, 128, 0)], "128 bytes per program, 128-byte aligned, the default stream 0")
    # an allocator given to the real Triton's set_allocator (Triton imported beside tric) serves too
    triton_alloc = types.ModuleType("triton.runtime._allocation")
    triton_alloc._allocator = contextvars.ContextVar("_allocator")
    triton_alloc._allocator.set(lambda size, align, stream: asked.append("triton") or T.FakeTensor(0xA0000))
    sys.modules["triton.runtime._allocation"] = triton_alloc
    try:
        expect_params(8, 4, 8)
        m.make_desc_kernel[(3,)](x, 64)
    finally:
        del sys.modules["triton.runtime._allocation"]
    check_eq((last_launch(3)[3][2], asked[-1]), (0xA0000, "triton"), "Triton's allocator when tric has none")
    triton.set_allocator(lambda size, align, stream: asked.append(size) or T.FakeTensor(0x90000))
    try:
        m.make_desc_kernel[(3,)](x, 64, num_ctas=2)
    finally:
        triton.set_allocator(None)
    check_eq(asked[-1], 2 * 3 * 128, "scratch per CTA, as Triton asks for it: num_ctas times per program")


def test_torch_stream():
    """With torch imported, launches go on the current stream of the
    tensors' device."""
    fake_torch = types.ModuleType("torch")
    fake_torch._C = types.SimpleNamespace(_cuda_getDevice=lambda: 0, _cuda_getCurrentRawStream=lambda dev: 0x5000 + dev)
    m = T.write_module(KERNELS)
    x = T.FakeTensor(0x10000, device=1)
    expect_params(8, 8, 8, 4)
    sys.modules["torch"] = fake_torch
    try:
        m.add_kernel[(2,)](x, x, x, 10)
    finally:
        del sys.modules["torch"]
    check_eq(last_launch(4)[2], 0x5001, "torch's current stream")
    m.add_kernel[(2,)](x, x, x, 10)
    check_eq(last_launch(4)[2], None, "no torch: the default stream")


def test_devices():
    """Launches go to the device of the tensor arguments; pointers that do
    not say (and C programs) go to the calling thread's current CUDA
    context, as the CUDA runtime leaves it (the fake driver has two devices,
    and refuses a module used outside the context it was loaded into). A
    CPU tensor, or tensors on two devices, are refused, never read."""
    m = T.write_module(KERNELS)
    x, y, out = T.FakeCudaArray(0x10000), T.FakeCudaArray(0x20000), T.FakeCudaArray(0x30000)
    expect_params(8, 8, 8, 4)
    lib = triton._lib.lib
    ctx = [ctypes.c_void_p(), ctypes.c_void_p()]
    for d in (0, 1):
        fake.cuDevicePrimaryCtxRetain(ctypes.byref(ctx[d]), d)
    fake.cuCtxSetCurrent(None)
    m.add_kernel[(1,)](x, y, out, 10)
    check_eq(fake.fake_last_device(), 0, "no current context: device 0's primary")
    loads = fake.fake_launch_count()
    try:
        fake.cuCtxSetCurrent(ctx[1])   # as cudaSetDevice(1) / torch.cuda.set_device(1) leave it
        m.add_kernel[(2,)](x, y, out, 10)
        check_eq((fake.fake_last_device(), last_launch(4)[0]), (1, (2, 1, 1)), "device 1's context: device 1")
        fake.cuCtxSetCurrent(ctx[0])
        m.add_kernel[(3,)](x, y, out, 10)
        check_eq((fake.fake_last_device(), last_launch(4)[0]), (0, (3, 1, 1)), "back on device 0, its own module")
        check_eq(fake.fake_launch_count(), loads + 2, "both launched")
        # tric_set_device / tric_get_device: cudaSetDevice / cudaGetDevice for C programs
        triton._lib.call(lib.tric_set_device, 1)
        n, cur = ctypes.c_int(), ctypes.c_int()
        triton._lib.call(lib.tric_get_device, ctypes.byref(cur))
        triton._lib.call(lib.tric_device_count, ctypes.byref(n))
        check_eq((n.value, cur.value), (2, 1), "two devices; device 1 current")
        m.add_kernel[(4,)](x, y, out, 10)
        check_eq(fake.fake_last_device(), 1, "tric_set_device(1): device 1")
        e = raises(Exception, lambda: triton._lib.call(lib.tric_set_device, 5))
        check(e and "no CUDA device 5 (this machine has 2)" in str(e), "device 5 refused: %s" % e)
    finally:
        fake.cuCtxSetCurrent(ctx[0])
    # with torch: the launch goes to the tensors' device, on that device's current stream; without
    # tensors, to torch's current device
    fake_torch = types.ModuleType("torch")
    fake_torch._C = types.SimpleNamespace(_cuda_getDevice=lambda: 0, _cuda_getCurrentRawStream=lambda dev: 0x700 + dev)
    sys.modules["torch"] = fake_torch
    try:
        m.add_kernel[(1,)](T.FakeTensor(0x10000, device=1), T.FakeTensor(0x20000, device=1), T.FakeTensor(0x30000, device=1), 10)
        check_eq((fake.fake_last_device(), last_launch(4)[2]), (1, 0x701), "tensors on cuda:1: device 1, its stream")
        ctx_now = ctypes.c_void_p()
        fake.cuCtxGetCurrent(ctypes.byref(ctx_now))
        check_eq(ctx_now.value, ctx[0].value, "the thread's own context is left as it was")
        m.add_kernel[(1,)](T.FakeTensor(0x10000, device=0), T.FakeTensor(0x20000, device=0), T.FakeTensor(0x30000, device=0), 10)
        check_eq((fake.fake_last_device(), last_launch(4)[2]), (0, 0x700), "tensors on cuda:0: device 0")
        expect_params(8, 4, 4, 4, 1, 8)
        m.scalars_kernel[(1,)](T.FakeTensor(0x30000, device=1), 7, -3, 1.5, True, 5, BLOCK=64)
        check_eq(fake.fake_last_device(), 1, "one tensor on cuda:1")
        expect_params(8, 8, 8, 4)
        before = fake.fake_launch_count()
        e = raises(ValueError, lambda: m.add_kernel[(1,)](T.FakeTensor(0x10000, device=0), T.FakeTensor(0x20000, device=1), out, 10))
        check(e and "argument 'y_ptr' is on cuda:1 but 'x_ptr' is on cuda:0; a kernel's tensors must be on one "
              "device" in str(e), "tensors on two devices: %s" % e)
        e = raises(ValueError, lambda: m.add_kernel[(1,)](T.FakeTensor(0x10000, device=-1), y, out, 10))
        check(e and "argument 'x_ptr' is a CPU tensor; a kernel reads GPU memory only" in str(e), "a CPU tensor: %s" % e)
        check_eq(fake.fake_launch_count(), before, "neither launched")
        # pinned host memory is read through unified addressing: launched, on the other tensors' device
        m.add_kernel[(1,)](T.FakeTensor(0x10000, device=-1, pinned=True), T.FakeTensor(0x20000, device=1), out, 10)
        check_eq((fake.fake_launch_count(), fake.fake_last_device()), (before + 1, 1), "a pinned host tensor")
    finally:
        del sys.modules["torch"]


def test_grid():
    m = T.write_module(KERNELS)
    x = T.FakeTensor(0x10000)
    seen = []

    def grid(meta):
        seen.append(dict(meta))
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)

    expect_params(8, 8, 8, 4)
    m.add_kernel[grid](x, x, x, 1000, BLOCK=128)
    check_eq(seen, [{"x_ptr": x, "y_ptr": x, "out_ptr": x, "n": 1000, "BLOCK": 128}], "META has every argument")
    check_eq(last_launch(4)[0], (8, 1, 1), "grid from META")
    m.add_kernel[grid](x, x, x, 1000)
    check_eq(seen[-1]["BLOCK"], 256, "META has defaults")
    before = launches()
    m.add_kernel[(0,)](x, x, x, 1000)
    m.add_kernel[(4, 0, 2)](x, x, x, 1000)
    check_eq(launches(), before, "a zero grid launches nothing")
    c = m.add_kernel.warmup(x, x, x, 1000, grid=(1,))
    check_eq(launches(), before, "warmup launches nothing")
    c[(5, 1, 1)](x, x, x, 999, 256)
    check_eq(last_launch(4)[:2], ((5, 1, 1), 128), "compiled[grid](...) launches")
    check_eq(fake.fake_last_cooperative(), 0, "an ordinary launch")
    m.add_kernel[(2,)](x, x, x, 1000, launch_cooperative_grid=True)
    check_eq(fake.fake_last_cooperative(), 1, "launch_cooperative_grid=True: cuLaunchCooperativeKernel")
    m.add_kernel[(2,)](x, x, x, 1000, launch_cooperative_grid=False)
    check_eq(fake.fake_last_cooperative(), 0, "and False: cuLaunchKernel")


def test_do_bench():
    m = T.write_module(KERNELS)
    x = T.FakeTensor(0x10000)
    expect_params(8, 8, 8, 4)

    def run():
        m.add_kernel[(1,)](x, x, x, 1000)

    # the fake driver's events read 0.5 ms per launch between them
    ms = triton.testing.do_bench(run, warmup=5, rep=20)
    check_eq(ms, 0.5, "do_bench: the median by libtric's events")
    check_eq(triton.testing.do_bench(run, warmup=1, rep=3, quantiles=(0.5, 0.2)), [0.5, 0.5], "quantiles")
    check_eq(len(triton.testing.do_bench(run, warmup=1, rep=3, return_mode="all")), 6, "all times")
    check_eq(triton.testing.summarize([1.0, 2.0, 3.0, 10.0], quantiles=(0.5,)), 2.5, "interpolated quantile")
    check_eq(triton.testing.summarize([1.0, 2.0, 3.0, 10.0], return_mode="mean"), 4.0, "mean")
    check_eq(triton.testing.summarize([1.0, 2.0, 3.0, 10.0], return_mode="min"), 1.0, "min")
    raises(ValueError, triton.testing.do_bench, run, return_mode="best")


TUNED = '''import tric as triton
import tric.language as tl


@triton.jit
def tuned_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)


@triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n"]) // 4})
@triton.jit
def heur_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
'''


def make(mod, configs, timer, **kw):
    """@autotune(...) over the module's tuned_kernel, with the fake timer."""
    return triton.autotune(configs=configs, key=["n"], do_bench=timer, **kw)(mod.tuned_kernel)


class FakeTimer:
    """do_bench stand-in: runs the call once (so hooks and launches happen)
    and reports a time by the block size it launched with."""

    def __init__(self):
        self.times = {}
        self.calls = 0

    def __call__(self, kernel_call, quantiles):
        self.calls += 1
        kernel_call()
        block = last_launch(3)[1]
        return [self.times[block]] * len(quantiles)


def test_autotune():
    mod = T.write_module(TUNED)
    timer = FakeTimer()
    configs = [triton.Config({"BLOCK": 64}, num_warps=2), triton.Config({"BLOCK": 128}, num_warps=4),
               triton.Config({"BLOCK": 256}, num_warps=8), triton.Config({"BLOCK": 48}, num_warps=1)]
    k = make(mod, configs, timer, reset_to_zero=["out_ptr"], restore_value=["x_ptr"])
    x, out = T.FakeTensor(0x10000), T.FakeTensor(0x20000)
    grid = lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)  # noqa: E731
    expect_params(8, 8, 4)
    timer.times = {64: 3.0, 128: 1.0, 256: 2.0}
    k[grid](x, out, 1000)
    check_eq(timer.calls, 4, "each config is timed (BLOCK=48 fails to compile inside the timer)")
    check_eq(k.best_config.kwargs, {"BLOCK": 128}, "best config")
    check_eq(k.configs_timings[configs[3]], [float("inf")] * 3, "a config that fails to compile is inf")
    check_eq(last_launch(3)[:2], ((8, 1, 1), 128), "the best config ran with its grid and warps")
    check_eq(out.zeroed, 4 + 1, "reset_to_zero before each timed run and after tuning")
    check_eq((x.cloned, x.restored), (4, 4), "restore_value around each timed run, the failed one too")

    k[grid](x, out, 1000)
    check_eq(timer.calls, 4, "the same key is not tuned again")
    timer.times = {64: 0.5, 128: 1.0, 256: 2.0}
    k[grid](x, out, 5000)
    check_eq(timer.calls, 8, "a new key value is tuned")
    check_eq(last_launch(3)[:2], ((79, 1, 1), 64), "best for the new key")
    check_eq(len(k.cache), 2, "best config per key")
    k[grid](x, out, 1000)
    check_eq(last_launch(3)[:2], ((8, 1, 1), 128), "first key keeps its config")
    timer.times = {64: 9.0, 128: 9.0, 256: 0.1}
    k[grid](x, T.FakeTensor(0x30000, "torch.float16"), 1000)
    check_eq(timer.calls, 12, "tensor dtypes are part of the key")
    check_eq(sorted(k.cache), sorted([(1000, "torch.float32", "torch.float32"), (5000, "torch.float32", "torch.float32"),
                                      (1000, "torch.float32", "torch.float16")]), "the keys")

    e = raises(ValueError, lambda: k[grid](x, out, 12345, BLOCK=64))
    check(e is not None and str(e).startswith("Conflicting meta-parameters: BLOCK."), "conflicting meta-parameters")

    buf = io.StringIO()
    os.environ["TRIC_PRINT_AUTOTUNING"] = "1"
    try:
        with contextlib.redirect_stdout(buf):
            k[grid](x, out, 777)
    finally:
        del os.environ["TRIC_PRINT_AUTOTUNING"]
    check("tric autotuning for function tuned_kernel" in buf.getvalue() and "BLOCK: 256" in buf.getvalue(),
          "TRIC_PRINT_AUTOTUNING")



def test_autotune_warmup_and_prune():
    mod = T.write_module(TUNED)
    timer = FakeTimer()
    configs = [triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((64, 2), (128, 4), (256, 8))]
    seen = []

    def early(cfgs, nargs, **kw):
        seen.append(sorted(nargs))
        return [c for c in cfgs if c.kwargs["BLOCK"] <= nargs["n"]]

    k = make(mod, configs, timer, prune_configs_by={"early_config_prune": early})
    compiled = k.warmup(tl.float32, tl.float32, 200, grid=(1,))
    check_eq(sorted(c.metadata.signature for c in compiled),
             ["*fp32:16, *fp32:16, i32, 128", "*fp32:16, *fp32:16, i32, 64"], "warmup compiles the pruned configs")
    x, out = T.FakeTensor(0x10000), T.FakeTensor(0x20000)
    timer.times = {64: 2.0, 128: 1.0, 256: 0.1}
    expect_params(8, 8, 4)
    k[lambda meta: (1,)](x, out, 200)
    check_eq(timer.calls, 2, "pruned config not timed")
    check_eq(k.best_config.kwargs["BLOCK"], 128, "best of the pruned")
    check_eq(seen[-1], ["n", "out_ptr", "x_ptr"], "early_config_prune gets the named arguments")

    model = lambda x_ptr, out_ptr, n, BLOCK, num_warps, num_stages, num_ctas, **kw: -BLOCK  # noqa: E731
    k2 = make(mod, configs, timer, prune_configs_by={"perf_model": model, "top_k": 1})
    k2[lambda meta: (1,)](x, out, 300)
    check_eq(k2.best_config.kwargs["BLOCK"], 256, "perf_model with top_k keeps the predicted best")
    check_eq(timer.calls, 3, "only top_k configs timed")
    # a fraction of the configs that rounds to none still keeps the predicted best
    k3 = make(mod, configs, timer, prune_configs_by={"perf_model": model, "top_k": 0.1})
    k3[lambda meta: (1,)](x, out, 400)
    check_eq((k3.best_config.kwargs["BLOCK"], timer.calls), (256, 4), "top_k=0.1 of 3 configs: one timed")


def test_autotune_skips_spilling():
    mod = T.write_module(TUNED)
    timer = FakeTimer()
    # BLOCK 16384 in one warp holds 512 f32 per thread: far above 255
    configs = [triton.Config({"BLOCK": 16384}, num_warps=1), triton.Config({"BLOCK": 128}, num_warps=4)]
    k = make(mod, configs, timer)
    x, out = T.FakeTensor(0x10000), T.FakeTensor(0x20000)
    timer.times = {32: 0.1, 128: 1.0}
    expect_params(8, 8, 4)
    k[lambda meta: (1,)](x, out, 200)
    check_eq(timer.calls, 1, "the config whose estimate is far above 255 is not timed")
    check_eq(k.best_config.kwargs["BLOCK"], 128, "the config that fits")
    big = k.warmup(tl.float32, tl.float32, 200, grid=(1,))
    est = sorted(c.est_regs for c in big)
    check(est[0] < 64 and est[1] > 459, "est_regs of the two configs: %s" % est)
    k2 = make(mod, [configs[0], triton.Config({"BLOCK": 16384}, num_warps=1, num_stages=2)], timer)
    k2[lambda meta: (1,)](x, out, 200)
    check_eq(timer.calls, 3, "when every config would spill, all are timed")


def test_heuristics():
    mod = T.write_module(TUNED)
    x, out = T.FakeTensor(0x10000), T.FakeTensor(0x20000)
    expect_params(8, 8, 4)
    mod.heur_kernel[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](x, out, 1000)
    check_eq(last_launch(3)[0], (4, 1, 1), "heuristics set BLOCK = 256 from n")
    c = mod.heur_kernel.warmup(tl.float32, tl.float32, 100, grid=(1,))
    check_eq(c.metadata.signature, "*fp32:16, *fp32:16, i32, 32", "heuristics in warmup")


def test_launch_overhead():
    """The Python cost of a cached launch (binding, key, cache lookup, grid,
    packing and the call into libtric and the fake driver)."""
    m = T.write_module(KERNELS)
    x, y, out = T.FakeTensor(0x10000), T.FakeTensor(0x20000), T.FakeTensor(0x30000)
    expect_params(8, 8, 8, 4)
    k = m.add_kernel
    grid = (4,)
    k[grid](x, y, out, 1000, BLOCK=256)
    n = 20000
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            k[grid](x, y, out, 1000, BLOCK=256)
        best = min(best, (time.perf_counter() - t0) / n * 1e6)
    lam = lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)  # noqa: E731
    t0 = time.perf_counter()
    for _ in range(n):
        k[lam](x, y, out, 1000, BLOCK=256)
    with_lambda = (time.perf_counter() - t0) / n * 1e6
    print("launch path (fake driver): %.2f us per launch with a tuple grid, %.2f us with a lambda grid"
          % (best, with_lambda))
    check(best < 200, "launch path under 200 us even on a slow CI machine")


T.run([test_packing, test_jit_cache, test_module_api, test_tensor_descriptor, test_torch_stream, test_devices, test_grid, test_do_bench, test_autotune, test_autotune_warmup_and_prune, test_autotune_skips_spilling,
       test_heuristics,
       test_launch_overhead])
