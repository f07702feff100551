"""triton.backends.compiler's GPUTarget: what a kernel is compiled for."""
from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True)
class GPUTarget:
    """backend "cuda", arch the compute capability as an int (90 for
    sm_90), warp_size 32."""
    backend: str
    arch: Union[int, str]
    warp_size: int


__all__ = ["GPUTarget"]
