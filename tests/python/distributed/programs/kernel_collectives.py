"""The collectives in their kernel (InCore composite) form: each rank's kernel stages its data into a window and
calls pld.tensor.allreduce (mesh Max, ring Sum), broadcast, allgather, reduce_scatter, all_to_all and barrier; every
rank checks every result against torch. The ring signal is [2(NR-1), NR], so the program is built for one rank count
(`--ranks N`)."""

import argparse

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto.runtime import RunConfig
from pypto.runtime.distributed import DistributedConfig

R, C = 4, 64


def build(nr: int):
    ring_rows = 2 * (nr - 1)

    @pl.jit.incore
    def collectives(x: pl.Tensor, mine: pl.Tensor, rows: pl.Tensor, data: pl.InOut[pl.Tensor], table: pl.InOut[pl.Tensor],
                    stage: pl.InOut[pl.Tensor], sig: pl.InOut[pl.Tensor], ring: pl.InOut[pl.Tensor],
                    maxed: pl.Out[pl.Tensor], summed: pl.Out[pl.Tensor], rooted: pl.Out[pl.Tensor],
                    gathered: pl.Out[pl.Tensor], scattered: pl.Out[pl.Tensor], swapped: pl.Out[pl.Tensor]):
        # Shapes come from the arguments: the windows' (pld.DistributedTensor) from pld.window in run_all.
        pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], data)
        data = pld.tensor.allreduce(data, sig, op=pld.ReduceOp.Max)
        pl.store(pl.load(data, [0, 0], [R, C]), [0, 0], maxed)
        pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], data)
        data = pld.tensor.allreduce(data, ring, op=pld.ReduceOp.Sum, mode="ring")
        pl.store(pl.load(data, [0, 0], [R, C]), [0, 0], summed)
        pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], data)
        data = pld.tensor.broadcast(data, sig, root=nr - 1)
        pl.store(pl.load(data, [0, 0], [R, C]), [0, 0], rooted)
        table = pld.tensor.allgather(mine, table, sig)
        pl.store(pl.load(table, [0, 0], [nr, C]), [0, 0], gathered)
        pl.store(pl.load(rows, [0, 0], [nr, C]), [0, 0], table)
        table = pld.tensor.reduce_scatter(table, sig)
        pl.store(pl.load(table, [0, 0], [nr, C]), [0, 0], scattered)
        pl.store(pl.load(rows, [0, 0], [nr, C]), [0, 0], stage)
        table = pld.tensor.all_to_all(stage, table, sig)
        sig = pld.tensor.barrier(sig)
        pl.store(pl.load(table, [0, 0], [nr, C]), [0, 0], swapped)
        return maxed, summed, rooted, gathered, scattered, swapped

    @pl.jit
    def collectives_dev(x, mine, rows, data, table, stage, sig, ring, maxed, summed, rooted, gathered, scattered,
                        swapped):
        a, b, c, d, e, f = collectives(x, mine, rows, data, table, stage, sig, ring, maxed, summed, rooted, gathered,
                                       scattered, swapped)
        return a, b, c, d, e, f

    @pl.jit.host
    def run_all(x, rows, maxed, summed, rooted, gathered, scattered, swapped):
        data_buf = pld.alloc_window_buffer([R, C], dtype=pl.FP32)
        table_buf = pld.alloc_window_buffer([nr, C], dtype=pl.FP32)
        stage_buf = pld.alloc_window_buffer([nr, C], dtype=pl.FP32)
        sig_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
        ring_buf = pld.alloc_window_buffer([ring_rows, nr], dtype=pl.INT32)
        for r in pl.range(pld.world_size()):
            collectives_dev(x[r], x[r][0:1], rows[r], pld.window(data_buf, [R, C], dtype=pl.FP32),
                            pld.window(table_buf, [nr, C], dtype=pl.FP32),
                            pld.window(stage_buf, [nr, C], dtype=pl.FP32),
                            pld.window(sig_buf, [nr, 1], dtype=pl.INT32),
                            pld.window(ring_buf, [ring_rows, nr], dtype=pl.INT32),
                            maxed[r], summed[r], rooted[r], gathered[r], scattered[r], swapped[r], device=r)

    return run_all


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ranks", type=int, default=4)
    nr = parser.parse_args().ranks
    torch.manual_seed(0)
    x = torch.randn(nr, R, C)
    rows = torch.randn(nr, nr, C)
    outs = [torch.zeros(nr, R, C) for _ in range(3)] + [torch.zeros(nr, nr, C) for _ in range(3)]
    build(nr)(x, rows, *outs, config=RunConfig(distributed_config=DistributedConfig(world_size=nr)))
    maxed, summed, rooted, gathered, scattered, swapped = outs
    torch.testing.assert_close(maxed, x.max(0).values.expand(nr, R, C))
    torch.testing.assert_close(summed, x.sum(0).expand(nr, R, C))
    torch.testing.assert_close(rooted, x[nr - 1].expand(nr, R, C))
    torch.testing.assert_close(gathered, x[:, 0, :].expand(nr, nr, C))
    sums = rows.sum(0)
    for r in range(nr):
        torch.testing.assert_close(scattered[r, r], sums[r])
        torch.testing.assert_close(swapped[r], rows[:, r, :])
    print("OK")


if __name__ == "__main__":
    main()
