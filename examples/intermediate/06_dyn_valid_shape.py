"""A partial tile: only the first n columns are valid; fillpad zeroes the rest before the row sum.

    python examples/intermediate/06_dyn_valid_shape.py

`n` is a scalar the kernel is specialized on: each value compiles once.
"""

import torch

import pypto.language as pl
from pypto.runtime import RunConfig


@pl.jit
def partial_row_sum(x: pl.Tensor[[64, 128], pl.FP32], n: pl.Scalar[pl.INDEX],
                    out: pl.Out[pl.Tensor[[64, 1], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [64, 128], valid_shape=[64, n])
        padded = pl.fillpad(t, pad_value=pl.PadValue.zero)
        work = pl.create_tile([64, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        s: pl.Tile[[64, 1], pl.FP32] = pl.row_sum(padded, work)
        pl.store(s, [0, 0], out)
    return out


def main() -> None:
    torch.manual_seed(0)
    x = torch.randn(64, 128)
    out = torch.zeros(64, 1)
    for n in (100, 37):
        partial_row_sum(x, n, out, config=RunConfig())
        torch.testing.assert_close(out, x[:, :n].sum(dim=1, keepdim=True), rtol=1e-5, atol=1e-5)
    print("OK")


if __name__ == "__main__":
    main()
