"""Matmul with K split in steps, accumulated in the cube core's Acc buffer (TMATMUL_ACC).

    python examples/intermediate/04_matmul_acc.py
"""

import torch

import pypto.language as pl
from pypto.runtime import RunConfig


@pl.jit
def matmul_acc(a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 64], pl.FP16],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        acc = pl.matmul(ta, tb)
        for k in pl.range(64, 256, 64):
            ta_k = pl.load(a, [0, k], [64, 64], target_memory=pl.Mem.Mat)
            tb_k = pl.load(b, [k, 0], [64, 64], target_memory=pl.Mem.Mat)
            acc = pl.matmul_acc(acc, ta_k, tb_k)
        pl.store(acc, [0, 0], out)
    return out


def main() -> None:
    torch.manual_seed(0)
    a, b = torch.randn(64, 256).half(), torch.randn(256, 64).half()
    out = torch.zeros(64, 64)
    matmul_acc(a, b, out, config=RunConfig())
    torch.testing.assert_close(out, a.float() @ b.float(), rtol=1e-4, atol=1e-3)
    print("OK")


if __name__ == "__main__":
    main()
