"""A linear layer as two kernels joined by a device tensor: matmul, then bias + ReLU.

    python examples/intermediate/01_fused_linear.py

The matmul runs on the cube core (AIC), bias and ReLU on a vector core
(AIV); the runtime orders them through the intermediate tensor `h`.
"""

import torch

import pypto.language as pl
from pypto.runtime import RunConfig


@pl.jit
def linear_relu(x: pl.Tensor[[64, 128], pl.FP16], w: pl.Tensor[[128, 64], pl.FP16],
                bias: pl.Tensor[[1, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    h = pl.create_tensor([64, 64], pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="linear"):
        tx = pl.load(x, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
        tw = pl.load(w, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        pl.store(pl.matmul(tx, tw), [0, 0], h)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="bias_relu"):
        th = pl.load(h, [0, 0], [64, 64])
        tb = pl.load(bias, [0, 0], [1, 64])
        pl.store(pl.relu(pl.col_expand_add(th, tb)), [0, 0], out)
    return out


def main() -> None:
    torch.manual_seed(0)
    x, w = torch.randn(64, 128).half(), torch.randn(128, 64).half()
    bias = torch.randn(1, 64)
    out = torch.zeros(64, 64)
    linear_relu(x, w, bias, out, config=RunConfig())
    torch.testing.assert_close(out, torch.relu(x.float() @ w.float() + bias), rtol=1e-4, atol=1e-4)
    print("OK")


if __name__ == "__main__":
    main()
