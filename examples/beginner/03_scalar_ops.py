"""Tile x scalar operations: y = max(3 * x + 1.5, 0).

    python examples/beginner/03_scalar_ops.py
"""

import torch

import pypto.language as pl
from pypto.runtime import RunConfig


@pl.jit
def scale_shift_relu(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [64, 128])
        y = pl.add(pl.mul(t, 3.0), 1.5)
        pl.store(pl.maximum(y, 0.0), [0, 0], out)
    return out


def main() -> None:
    torch.manual_seed(0)
    a = torch.randn(64, 128)
    out = torch.zeros(64, 128)
    scale_shift_relu(a, out, config=RunConfig())
    torch.testing.assert_close(out, torch.clamp(a * 3.0 + 1.5, min=0.0))
    print("OK")


if __name__ == "__main__":
    main()
