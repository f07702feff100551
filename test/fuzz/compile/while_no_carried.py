# k|*i32|sm_80
# a while loop that carries no value: its blocks have no arguments (was NULL + 0 in lower.c)
import triton
import triton.language as tl


@triton.jit
def k(lock):
    while tl.atomic_cas(lock, 0, 1) != 0:
        pass
