"""Row softmax, 32 rows per task: row max, subtract, exp, row sum, divide.

    python examples/intermediate/02_softmax.py
"""

import torch

import pypto.language as pl
from pypto.runtime import RunConfig


@pl.jit
def softmax(x: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]):
    for r in pl.range(0, 256, 32):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [r, 0], [32, 128])
            work = pl.create_tile([32, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            m: pl.Tile[[32, 1], pl.FP32] = pl.row_max(t, work)
            e = pl.exp(pl.row_expand_sub(t, m))
            s: pl.Tile[[32, 1], pl.FP32] = pl.row_sum(e, work)
            pl.store(pl.row_expand_div(e, s), [r, 0], out)
    return out


def main() -> None:
    torch.manual_seed(0)
    x = torch.randn(256, 128) * 4
    out = torch.zeros(256, 128)
    softmax(x, out, config=RunConfig())
    torch.testing.assert_close(out, torch.softmax(x, dim=-1), rtol=1e-5, atol=1e-6)
    print("OK")


if __name__ == "__main__":
    main()
