"""Attention scores as one mixed kernel: q @ k^T on the cube core, row softmax on both vector lanes.

    python examples/intermediate/09_mixed_matmul_softmax.py

One `pl.at` scope holds the matmul and the softmax after it (scale, row max,
subtract, exp, row sum, divide, as in examples/intermediate/02_softmax.py).
The compiler (ExpandMixedKernel, docs/mixed-kernels.md) splits it into an
AIC kernel that computes the [64, 64] score tile and pushes it into the
cluster's cross-core pipe, and an AIV kernel that pops it and normalizes it.

A row softmax only combines values of the same row, so it can be split by
rows: with `pl.split(pl.SplitMode.UP_DOWN)` each of the two vector lanes
receives 32 of the 64 rows and runs the whole softmax on them (its work
tile and its [32, 1] row maxima and sums are halves too). A reduction
across rows (`col_sum`) could not be split this way; the compiler says so.
"""

import math

import torch

import pypto.language as pl
from pypto.runtime import RunConfig

S, D = 64, 128  # 64 queries and 64 keys of dimension 128
SCALE = 1.0 / math.sqrt(D)


@pl.jit
def scores_softmax(q: pl.Tensor[[S, D], pl.FP16], kt: pl.Tensor[[D, S], pl.FP16],
                   out: pl.Out[pl.Tensor[[S, S], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scores",
               optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
        # Cube core: the [S, S] scores.
        scores = pl.matmul(pl.load(q, [0, 0], [S, D], target_memory=pl.Mem.Mat),
                           pl.load(kt, [0, 0], [D, S], target_memory=pl.Mem.Mat))
        # Vector lanes, 32 rows each: softmax(scores * SCALE) along the rows.
        s = pl.mul(scores, SCALE)
        work = pl.create_tile([S, S], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        m: pl.Tile[[S, 1], pl.FP32] = pl.row_max(s, work)
        e = pl.exp(pl.row_expand_sub(s, m))
        total: pl.Tile[[S, 1], pl.FP32] = pl.row_sum(e, work)
        pl.store(pl.row_expand_div(e, total), [0, 0], out)
    return out


def main() -> None:
    torch.manual_seed(0)
    q, kt = torch.randn(S, D).half(), torch.randn(D, S).half()
    out = torch.zeros(S, S)
    scores_softmax(q, kt, out, config=RunConfig())
    expected = torch.softmax(q.float() @ kt.float() * SCALE, dim=-1)
    torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-5)
    print("OK")


if __name__ == "__main__":
    main()
