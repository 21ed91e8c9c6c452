"""Concatenate two tiles side by side with pl.concat.

    python examples/beginner/06_concat.py
"""

import torch

import pypto.language as pl
from pypto.runtime import RunConfig


@pl.jit
def concat(a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32],
           out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [32, 64])
        tb = pl.load(b, [0, 0], [32, 64])
        pl.store(pl.concat(ta, tb), [0, 0], out)
    return out


def main() -> None:
    torch.manual_seed(0)
    a, b = torch.randn(32, 64), torch.randn(32, 64)
    out = torch.zeros(32, 128)
    concat(a, b, out, config=RunConfig())
    torch.testing.assert_close(out, torch.cat([a, b], dim=1), rtol=0, atol=0)
    print("OK")


if __name__ == "__main__":
    main()
