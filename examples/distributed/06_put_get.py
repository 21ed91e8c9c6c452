"""Global-memory transfers: pld.tensor.get (pull) and pld.tensor.put (push), whole or by region.

    python examples/distributed/06_put_get.py [--ranks 4]

Each rank owns a block of R rows. A halo exchange gives every rank the last row of its
left neighbour's block, two ways:

* **pull** (`get`): each rank stages its block into a window, tells its right neighbour
  (notify), waits until its left neighbour has staged, then copies the region
  `[R - 1, 0] + [1, W]` of the left neighbour's window into a local tensor. Order: stage,
  signal, read.
* **push** (`put`): each rank copies its last row straight from its input into the halo
  window of its right neighbour (`src_offsets=[R - 1, 0]`, `shape=[1, W]`), then notifies
  it; the receiver waits and reads its halo window. Order: write, signal, read.

A `put` without the three region arguments moves the whole tensor (shapes must match):
here each rank also mirrors its whole block into its right neighbour's window.
The window is the peer side: `get` reads a window (`src`), `put` writes one (`dst`); the
other side may be any tensor of the chip.
"""

import argparse

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto.runtime import RunConfig
from pypto.runtime.distributed import DistributedConfig

NR = pl.dynamic("NR")
R, W = 8, 64


@pl.jit.incore
def halo_by_get(x: pl.Tensor[[R, W], pl.FP32], block: pl.InOut[pld.DistributedTensor[[R, W], pl.FP32]],
                staged: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]],
                halo: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    ctx = pld.get_comm_ctx(block)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    block = pl.store(pl.load(x, [0, 0], [R, W]), [0, 0], block)
    pld.system.notify(staged, (me + 1) % n, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(staged, [0, 0], 1, cmp=pld.WaitCmp.Ge)
    pld.tensor.get(halo, (me + n - 1) % n, block, [0, 0], [R - 1, 0], [1, W])
    return halo


@pl.jit.incore
def halo_by_put(x: pl.Tensor[[R, W], pl.FP32], halo_win: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
                mirror: pl.InOut[pld.DistributedTensor[[R, W], pl.FP32]],
                arrived: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]],
                halo: pl.Out[pl.Tensor[[1, W], pl.FP32]], mirrored: pl.Out[pl.Tensor[[R, W], pl.FP32]]):
    ctx = pld.get_comm_ctx(halo_win)
    right = (pld.rank(ctx) + 1) % pld.nranks(ctx)
    pld.tensor.put(halo_win, right, x, [0, 0], [R - 1, 0], [1, W])    # a region: my last row
    pld.tensor.put(mirror, right, x)                                  # the whole block
    pld.system.notify(arrived, right, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(arrived, [0, 0], 1, cmp=pld.WaitCmp.Ge)
    halo = pl.store(pl.load(halo_win, [0, 0], [1, W]), [0, 0], halo)
    mirrored = pl.store(pl.load(mirror, [0, 0], [R, W]), [0, 0], mirrored)
    return halo, mirrored


@pl.jit
def halo_by_get_dev(x: pl.Tensor[[R, W], pl.FP32], block: pl.InOut[pld.DistributedTensor[[R, W], pl.FP32]],
                    staged: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]],
                    halo: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    return halo_by_get(x, block, staged, halo)


@pl.jit
def halo_by_put_dev(x: pl.Tensor[[R, W], pl.FP32], halo_win: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
                    mirror: pl.InOut[pld.DistributedTensor[[R, W], pl.FP32]],
                    arrived: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]],
                    halo: pl.Out[pl.Tensor[[1, W], pl.FP32]], mirrored: pl.Out[pl.Tensor[[R, W], pl.FP32]]):
    halo, mirrored = halo_by_put(x, halo_win, mirror, arrived, halo, mirrored)
    return halo, mirrored


@pl.jit.host
def halo_exchange(x: pl.Tensor[[NR, R, W], pl.FP32], pulled: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]],
                  pushed: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]],
                  mirrored: pl.Out[pl.Tensor[[NR, R, W], pl.FP32]]):
    block_buf = pld.alloc_window_buffer([R, W], dtype=pl.FP32)
    halo_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    mirror_buf = pld.alloc_window_buffer([R, W], dtype=pl.FP32)
    staged_buf = pld.alloc_window_buffer([1, 8], dtype=pl.INT32)
    arrived_buf = pld.alloc_window_buffer([1, 8], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        block = pld.window(block_buf, [R, W], dtype=pl.FP32)
        staged = pld.window(staged_buf, [1, 8], dtype=pl.INT32)
        halo_by_get_dev(x[r], block, staged, pulled[r], device=r)
    for r in pl.range(pld.world_size()):
        halo_win = pld.window(halo_buf, [1, W], dtype=pl.FP32)
        mirror = pld.window(mirror_buf, [R, W], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [1, 8], dtype=pl.INT32)
        halo_by_put_dev(x[r], halo_win, mirror, arrived, pushed[r], mirrored[r], device=r)


def main() -> None:
    parser = argparse.ArgumentParser(description="halo exchange with pld.tensor.get and pld.tensor.put")
    parser.add_argument("--ranks", type=int, default=4, help="number of ranks (default 4)")
    args = parser.parse_args()
    n = args.ranks
    config = RunConfig(distributed_config=DistributedConfig(world_size=n))

    torch.manual_seed(0)
    x = torch.randn(n, R, W)
    pulled, pushed = torch.zeros(n, 1, W), torch.zeros(n, 1, W)
    mirrored = torch.zeros(n, R, W)
    halo_exchange(x, pulled, pushed, mirrored, config=config)

    left_last_row = torch.roll(x, 1, 0)[:, R - 1:R, :]
    torch.testing.assert_close(pulled, left_last_row, rtol=0, atol=0)
    torch.testing.assert_close(pushed, left_last_row, rtol=0, atol=0)
    torch.testing.assert_close(mirrored, torch.roll(x, 1, 0), rtol=0, atol=0)
    print(f"{n} ranks: every rank holds its left neighbour's last row, pulled with get and pushed with put")
    print("OK")


if __name__ == "__main__":
    main()
