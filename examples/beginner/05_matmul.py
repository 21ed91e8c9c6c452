"""Matmul on the cube core: GM -> Mat -> Left/Right -> TMATMUL -> Acc -> GM.

    python examples/beginner/05_matmul.py

FP16 inputs, FP32 accumulation and output, as the cube unit computes it.
"""

import torch

import pypto.language as pl
from pypto.runtime import RunConfig


@pl.jit
def matmul(a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16],
           out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        c = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(tb, target_memory=pl.Mem.Right))
        pl.store(c, [0, 0], out)
    return out


def main() -> None:
    torch.manual_seed(0)
    a, b = torch.randn(64, 128).half(), torch.randn(128, 64).half()
    out = torch.zeros(64, 64)
    matmul(a, b, out, config=RunConfig())
    torch.testing.assert_close(out, a.float() @ b.float(), rtol=1e-4, atol=1e-4)
    print("OK")


if __name__ == "__main__":
    main()
