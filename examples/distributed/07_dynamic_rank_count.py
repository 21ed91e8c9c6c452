"""One source for any rank count: NR = pl.dynamic("NR"), pld.nranks and modular rank math.

    python examples/distributed/07_dynamic_rank_count.py [--ranks 4]

Nothing in this program names the rank count. The host signature's leading dimension is
`NR = pl.dynamic("NR")`, bound when the program runs (`pld.world_size()` is the same
number); the signal window is sized `[1, 8]` whatever the count; kernels ask
`pld.nranks(ctx)` and loop over `pl.range(n)` at run time, and find their left neighbour as
`(me + n - 1) % n` (non-negative, unlike `me - 1`). Run it with `--ranks 2`, `3` or `4`.

Every rank stages its row, then counts arrivals: each rank adds 1 to the counter of every
rank, itself included, and waits until its own counter reaches n. Then it pulls every
rank's row (sum over ranks) and its left neighbour's row.
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
def gather_sum(x: pl.Tensor[[1, W], pl.FP32], data: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
               arrived: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]],
               left: pl.Out[pl.Tensor[[1, W], pl.FP32]], total: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    ctx = pld.get_comm_ctx(data)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    data = pl.store(pl.load(x, [0, 0], [1, W]), [0, 0], data)
    for peer in pl.range(n):
        pld.system.notify(arrived, peer, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(arrived, [0, 0], n, cmp=pld.WaitCmp.Ge)
    acc = pl.tile.full([1, W], dtype=pl.FP32, value=0.0)
    for peer in pl.range(n):
        acc = pl.add(acc, pld.tile.remote_load(data, peer, [0, 0], [1, W]))
    total = pl.store(acc, [0, 0], total)
    left = pl.store(pld.tile.remote_load(data, (me + n - 1) % n, [0, 0], [1, W]), [0, 0], left)
    return left, total


@pl.jit
def gather_sum_dev(x: pl.Tensor[[1, W], pl.FP32], data: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
                   arrived: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]],
                   left: pl.Out[pl.Tensor[[1, W], pl.FP32]], total: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    left, total = gather_sum(x, data, arrived, left, total)
    return left, total


@pl.jit.host
def sum_and_shift(x: pl.Tensor[[NR, 1, W], pl.FP32], left: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]],
                  total: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]):
    data_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([1, 8], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        data = pld.window(data_buf, [1, W], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [1, 8], dtype=pl.INT32)
        gather_sum_dev(x[r], data, arrived, left[r], total[r], device=r)


def main() -> None:
    parser = argparse.ArgumentParser(description="the same program at any rank count")
    parser.add_argument("--ranks", type=int, default=4, help="number of ranks (default 4)")
    args = parser.parse_args()
    n = args.ranks
    config = RunConfig(distributed_config=DistributedConfig(world_size=n))

    torch.manual_seed(0)
    x = torch.randn(n, 1, W)
    left, total = torch.zeros(n, 1, W), torch.zeros(n, 1, W)
    sum_and_shift(x, left, total, config=config)

    torch.testing.assert_close(left, torch.roll(x, 1, 0), rtol=0, atol=0)
    torch.testing.assert_close(total, x.sum(dim=0, keepdim=True).expand(n, 1, W))
    print(f"NR bound to {n}: every rank summed {n} rows and pulled row (me + {n} - 1) % {n}")
    print("OK")


if __name__ == "__main__":
    main()
