"""RMSNorm and LayerNorm over rows, with a weight row broadcast down the columns.

    python examples/intermediate/03_normalization.py
"""

import torch

import pypto.language as pl
from pypto.runtime import RunConfig

ROWS, COLS = 32, 256


@pl.jit
def rms_norm(x: pl.Tensor[[ROWS, COLS], pl.FP32], gamma: pl.Tensor[[1, COLS], pl.FP32],
             out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [ROWS, COLS])
        g = pl.load(gamma, [0, 0], [1, COLS])
        work = pl.create_tile([ROWS, COLS], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        ss: pl.Tile[[ROWS, 1], pl.FP32] = pl.row_sum(pl.mul(t, t), work)
        rms = pl.sqrt(pl.add(pl.mul(ss, 1.0 / COLS), 1e-6))
        pl.store(pl.col_expand_mul(pl.row_expand_div(t, rms), g), [0, 0], out)
    return out


@pl.jit
def layer_norm(x: pl.Tensor[[ROWS, COLS], pl.FP32], gamma: pl.Tensor[[1, COLS], pl.FP32],
               beta: pl.Tensor[[1, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [ROWS, COLS])
        work = pl.create_tile([ROWS, COLS], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        mean = pl.mul(pl.row_sum(t, work), 1.0 / COLS)
        centered = pl.row_expand_sub(t, mean)
        var = pl.mul(pl.row_sum(pl.mul(centered, centered), work), 1.0 / COLS)
        normed = pl.row_expand_div(centered, pl.sqrt(pl.add(var, 1e-5)))
        scaled = pl.col_expand_mul(normed, pl.load(gamma, [0, 0], [1, COLS]))
        pl.store(pl.col_expand_add(scaled, pl.load(beta, [0, 0], [1, COLS])), [0, 0], out)
    return out


def main() -> None:
    torch.manual_seed(0)
    x, gamma, beta = torch.randn(ROWS, COLS), torch.randn(1, COLS), torch.randn(1, COLS)
    out = torch.zeros(ROWS, COLS)
    rms_norm(x, gamma, out, config=RunConfig())
    expected = x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + 1e-6) * gamma
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)
    layer_norm(x, gamma, beta, out, config=RunConfig())
    expected = torch.nn.functional.layer_norm(x, (COLS,), gamma[0], beta[0], eps=1e-5)
    torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-4)
    print("OK")


if __name__ == "__main__":
    main()
