"""Barriers: a hand-rolled one-shot barrier from signals, and the host builtin `pld.tensor.barrier`.

    python examples/distributed/04_barrier.py [--ranks 4]

A signal is an INT32 cell of a window. `pld.system.notify(sig, peer, offsets, value, op=...)`
changes a cell on rank `peer`; `pld.system.wait(sig, offsets, expected, cmp=...)` spins on a
cell of this rank until it holds the value.

The kernel barrier (`sig` is `[NR, 1]`, row s is written by rank s): every rank adds 1 to
row `me` of each peer's signal (`AtomicAdd`), then waits until each row s != me of its own
signal is `>= 1` (`Ge`). Nobody passes before everyone has arrived. The counters never go
back to zero, so this barrier is single-use: a second barrier needs a fresh window or a
higher threshold.

Each rank stages its data into its window, crosses the barrier, then reads its left
neighbour's window: without the barrier it could read zeros. The second half does the
same with the host builtin between two rounds of dispatches, on a signal window of its own:
host collectives start from a zeroed signal and leave it zeroed.
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
def stage_barrier_read(x: pl.Tensor[[1, W], pl.FP32], data: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
                       sig: pl.InOut[pld.DistributedTensor[[NR, 1], pl.INT32]],
                       out: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    ctx = pld.get_comm_ctx(data)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    data = pl.store(pl.load(x, [0, 0], [1, W]), [0, 0], data)
    # The barrier: all notifies first, then all waits.
    for s in pl.range(n):
        if s != me:
            pld.system.notify(sig, s, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for s in pl.range(n):
        if s != me:
            pld.system.wait(sig, [s, 0], 1, cmp=pld.WaitCmp.Ge)
    left = pld.tile.remote_load(data, (me + n - 1) % n, [0, 0], [1, W])
    return pl.store(left, [0, 0], out)


@pl.jit
def kernel_barrier_dev(x: pl.Tensor[[1, W], pl.FP32], data: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
                       sig: pl.InOut[pld.DistributedTensor[[NR, 1], pl.INT32]],
                       out: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    return stage_barrier_read(x, data, sig, out)


@pl.jit.incore
def stage(x: pl.Tensor[[1, W], pl.FP32], data: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]]):
    return pl.store(pl.mul(pl.load(x, [0, 0], [1, W]), 10.0), [0, 0], data)


@pl.jit
def stage_dev(x: pl.Tensor[[1, W], pl.FP32], data: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]]):
    return stage(x, data)


@pl.jit.incore
def read_right(data: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]], out: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    ctx = pld.get_comm_ctx(data)
    right = pld.tile.remote_load(data, (pld.rank(ctx) + 1) % pld.nranks(ctx), [0, 0], [1, W])
    return pl.store(right, [0, 0], out)


@pl.jit
def read_right_dev(data: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]], out: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    return read_right(data, out)


@pl.jit.host
def barriers(x: pl.Tensor[[NR, 1, W], pl.FP32], from_left: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]],
             from_right: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]):
    nr = pld.world_size()
    data_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
    # The host builtin needs a zeroed signal of its own (the kernel barrier leaves sig_buf's cells at 1); its
    # credit barrier leaves the signal zero again, so one serves any number of host barriers.
    host_sig_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
    host_sig = pld.window(host_sig_buf, [nr, 1], dtype=pl.INT32)
    for r in pl.range(nr):
        data = pld.window(data_buf, [1, W], dtype=pl.FP32)
        sig = pld.window(sig_buf, [nr, 1], dtype=pl.INT32)
        kernel_barrier_dev(x[r], data, sig, from_left[r], device=r)

    # The host builtin: every rank has read its neighbour before any rank stages the second round, and every
    # rank's second round is staged before any rank reads it.
    host_sig = pld.tensor.barrier(host_sig)
    for r in pl.range(nr):
        stage_dev(x[r], pld.window(data_buf, [1, W], dtype=pl.FP32), device=r)
    host_sig = pld.tensor.barrier(host_sig)
    for r in pl.range(nr):
        read_right_dev(pld.window(data_buf, [1, W], dtype=pl.FP32), from_right[r], device=r)


def main() -> None:
    parser = argparse.ArgumentParser(description="a hand-rolled barrier and the host barrier")
    parser.add_argument("--ranks", type=int, default=4, help="number of ranks (default 4)")
    args = parser.parse_args()
    config = RunConfig(distributed_config=DistributedConfig(world_size=args.ranks))

    torch.manual_seed(0)
    x = torch.randn(args.ranks, 1, W)
    from_left = torch.zeros(args.ranks, 1, W)
    from_right = torch.zeros(args.ranks, 1, W)
    barriers(x, from_left, from_right, config=config)

    torch.testing.assert_close(from_left, torch.roll(x, 1, 0), rtol=0, atol=0)
    torch.testing.assert_close(from_right, torch.roll(x, -1, 0) * 10, rtol=0, atol=0)
    print(f"{args.ranks} ranks: after the kernel barrier each rank read its left neighbour's row, after the host "
          "barrier its right neighbour's")
    print("OK")


if __name__ == "__main__":
    main()
