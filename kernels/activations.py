"""
Fused elementwise activations over fp32: the math builtins, where/minimum/
maximum, builtin min/max on constexprs, and a @jit helper that returns a tuple.
"""
import triton
import triton.language as tl

NEG_SLOPE = tl.constexpr(0.01)


@triton.jit
def _silu_and_gelu_tanh_free(x):
    # silu(x) = x * sigmoid(x); a smooth relu made of exp and sqrt
    silu = x * tl.sigmoid(x)
    soft = tl.sqrt(x * x + 1.0) * 0.5 + x * 0.5
    return silu, soft


@triton.jit
def activations_kernel(x_ptr, silu_ptr, soft_ptr, leaky_ptr, misc_ptr, n,
                       BLOCK: tl.constexpr, CLAMP: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    silu, soft = _silu_and_gelu_tanh_free(x)
    tl.store(silu_ptr + offs, silu, mask=mask)
    tl.store(soft_ptr + offs, soft, mask=mask)
    leaky = tl.where(x > 0, x, x * NEG_SLOPE)
    tl.store(leaky_ptr + offs, leaky, mask=mask)
    hi: tl.constexpr = max(CLAMP, 1.0)
    clamped = tl.minimum(tl.maximum(x, -hi), hi)
    misc = tl.exp2(clamped) + tl.log(tl.abs(x) + 1.0) - tl.rsqrt(x * x + 4.0) + tl.log2(tl.exp(clamped) + 1.0)
    tl.store(misc_ptr + offs, misc, mask=mask)

# kernel: activations_kernel
# signature: *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, 512, 2.0
# grid: (cdiv(n, 512), 1, 1)
# args: x = rand(n, fp32) * 8; silu = empty(n, fp32); soft = empty(n, fp32); leaky = empty(n, fp32); misc = empty(n, fp32); n = 20000
# bench_args: x = rand(n, fp32) * 8; silu = empty(n, fp32); soft = empty(n, fp32); leaky = empty(n, fp32); misc = empty(n, fp32); n = 1 << 24
# torch: silu = F.silu(x); soft = torch.sqrt(x * x + 1) * 0.5 + x * 0.5; leaky = F.leaky_relu(x, 0.01); misc = torch.exp2(torch.clamp(x, -2.0, 2.0)) + torch.log(x.abs() + 1) - torch.rsqrt(x * x + 4) + torch.log2(torch.exp(torch.clamp(x, -2.0, 2.0)) + 1)
# check: silu == x / (1 + np.exp(-x)); soft == np.sqrt(x * x + 1) * 0.5 + x * 0.5; leaky == np.where(x > 0, x, x * 0.01); misc == np.exp2(np.clip(x, -2, 2)) + np.log(np.abs(x) + 1) - 1 / np.sqrt(x * x + 4) + np.log2(np.exp(np.clip(x, -2, 2)) + 1)
# tol: 1e-5
