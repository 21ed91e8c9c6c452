"""Writing tiles into slices of one result: exp on the left half, doubling on the right.

    python examples/intermediate/05_assemble.py
"""

import torch

import pypto.language as pl
from pypto.runtime import RunConfig


@pl.jit
def halves(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        left = pl.load(a, [0, 0], [64, 64])
        right = pl.load(a, [0, 64], [64, 64])
        pl.store(pl.exp(left), [0, 0], out)
        pl.store(pl.mul(right, 2.0), [0, 64], out)
    return out


def main() -> None:
    torch.manual_seed(0)
    a = torch.randn(64, 128)
    out = torch.zeros(64, 128)
    halves(a, out, config=RunConfig())
    torch.testing.assert_close(out, torch.cat([torch.exp(a[:, :64]), a[:, 64:] * 2.0], dim=1))
    print("OK")


if __name__ == "__main__":
    main()
