"""A rank that raises: the host orchestrator passes rank 1's chip program a tensor of the wrong shape, so only
rank 1 fails (with a KernelArgumentError at the dispatch); the job must end with that error, not hang.

    python raises_on_one_rank.py [--ranks 3]
"""

import argparse

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto.runtime import RunConfig
from pypto.runtime.distributed import DistributedConfig

NR = pl.dynamic("NR")
W = 64


@pl.jit.incore
def copy_row(x: pl.Tensor[[1, W], pl.FP32], y: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    return pl.store(pl.load(x, [0, 0], [1, W]), [0, 0], y)


@pl.jit
def copy_row_dev(x: pl.Tensor[[1, W], pl.FP32], y: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    return copy_row(x, y)


@pl.jit.host
def copy_rows(x: pl.Tensor[[NR, 1, W], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        if r == 1:
            copy_row_dev(x[r][:, : W // 2], y[r], device=r)     # rank 1 gets half a row
        else:
            copy_row_dev(x[r], y[r], device=r)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ranks", type=int, default=3)
    args = parser.parse_args()
    x = torch.randn(args.ranks, 1, W)
    y = torch.zeros(args.ranks, 1, W)
    copy_rows(x, y, config=RunConfig(distributed_config=DistributedConfig(world_size=args.ranks)))
    print("not reached")


if __name__ == "__main__":
    main()
