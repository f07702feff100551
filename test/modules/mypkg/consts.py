import triton.language as tl
TWO: tl.constexpr = 2
SCALE = tl.constexpr(3)
