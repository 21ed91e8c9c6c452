"""Hello, ranks: every rank writes its rank number into its own row of a shared result.

    python examples/distributed/01_hello_rank.py [--ranks 4]

The script starts itself again as P processes (ranks) under Open MPI. The host
orchestrator `hello` runs on every rank; each dispatch `fill_row_dev(..., device=r)`
runs only on rank r and writes row r of `out`. When `hello` returns, every row is
sent from the rank that wrote it to all ranks, so each rank holds the whole table
(and checks it). Only rank 0 prints.
"""

import argparse

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto.runtime import RunConfig
from pypto.runtime.distributed import DistributedConfig

NR = pl.dynamic("NR")  # the rank count, bound when the program runs
W = 64


@pl.jit.incore
def fill_row(row: pl.Out[pl.Tensor[[1, W], pl.FP32]], r: pl.Scalar[pl.INT32]):
    t = pl.tile.full([1, W], dtype=pl.FP32, value=0.0)
    return pl.store(pl.add(t, pl.cast(r, pl.FP32)), [0, 0], row)


@pl.jit
def fill_row_dev(row: pl.Out[pl.Tensor[[1, W], pl.FP32]], r: pl.Scalar[pl.INT32]):
    return fill_row(row, r)


@pl.jit.host
def hello(out: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        fill_row_dev(out[r], r, device=r)


def main() -> None:
    parser = argparse.ArgumentParser(description="each rank writes its rank into its row")
    parser.add_argument("--ranks", type=int, default=4, help="number of ranks (default 4)")
    args = parser.parse_args()
    config = RunConfig(distributed_config=DistributedConfig(world_size=args.ranks))

    out = torch.full((args.ranks, 1, W), -1.0)
    hello(out, config=config)

    # Every rank holds every row now; each checks them all (a wrong rank fails the job).
    expected = torch.arange(args.ranks, dtype=torch.float32).view(-1, 1, 1).expand(-1, 1, W)
    torch.testing.assert_close(out, expected, rtol=0, atol=0)
    print(f"{args.ranks} ranks, first column of each row: {out[:, 0, 0].tolist()}")
    print("OK")


if __name__ == "__main__":
    main()
