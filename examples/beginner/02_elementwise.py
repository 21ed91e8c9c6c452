"""Element-wise add then multiply, chunked by rows in a pl.range loop.

    python examples/beginner/02_elementwise.py

Each iteration is its own task on the runtime: 8 tasks of 64 rows each.
"""

import torch

import pypto.language as pl
from pypto.runtime import RunConfig


@pl.jit
def add_mul(a: pl.Tensor[[512, 256], pl.FP32], b: pl.Tensor[[512, 256], pl.FP32],
            out: pl.Out[pl.Tensor[[512, 256], pl.FP32]]):
    for r in pl.range(0, 512, 64):
        with pl.at(level=pl.Level.CORE_GROUP):
            ta = pl.load(a, [r, 0], [64, 256])
            tb = pl.load(b, [r, 0], [64, 256])
            pl.store(pl.mul(pl.add(ta, tb), tb), [r, 0], out)
    return out


def main() -> None:
    torch.manual_seed(0)
    a, b = torch.randn(512, 256), torch.randn(512, 256)
    out = torch.zeros(512, 256)
    add_mul(a, b, out, config=RunConfig())
    torch.testing.assert_close(out, (a + b) * b)
    print("OK")


if __name__ == "__main__":
    main()
