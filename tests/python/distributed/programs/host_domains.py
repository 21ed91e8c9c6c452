"""Two comm domains the compiler finds in a host orchestrator: buffer `a` is dispatched to devices 0 and 1
(`pl.range(2)`), buffer `b` to devices 1 and 2 (`pl.range(1, 3)`). Each kernel reports its rank and rank count
in its window's domain, then the domain {1, 2} sums its rows with a host allreduce on a signal the compiler
synthesizes, while device 0 is not part of it.

    python host_domains.py [--ranks 3]
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
def where_am_i(x: pl.Tensor[[1, W], pl.FP32], win: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
               ident: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    ctx = pld.get_comm_ctx(win)
    t = pl.load(x, [0, 0], [1, W])
    win = pl.store(t, [0, 0], win)
    # 10 * rank + rank count, in every element.
    return pl.store(pl.add(pl.mul(t, 0.0), pl.cast(pld.rank(ctx) * 10 + pld.nranks(ctx), pl.FP32)), [0, 0], ident)


@pl.jit
def where_am_i_dev(x: pl.Tensor[[1, W], pl.FP32], win: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
                   ident: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    return where_am_i(x, win, ident)


@pl.jit.incore
def read_back(win: pld.DistributedTensor[[1, W], pl.FP32], out: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    return pl.store(pl.load(win, [0, 0], [1, W]), [0, 0], out)


@pl.jit
def read_back_dev(win: pld.DistributedTensor[[1, W], pl.FP32], out: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    return read_back(win, out)


@pl.jit.host
def two_domains(x: pl.Tensor[[NR, 1, W], pl.FP32], in_a: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]],
                in_b: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]], total: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]):
    a_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    b_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    for r in pl.range(2):
        where_am_i_dev(x[r], pld.window(a_buf, [1, W], dtype=pl.FP32), in_a[r], device=r)
    b = pld.window(b_buf, [1, W], dtype=pl.FP32)
    for r in pl.range(1, 3):
        where_am_i_dev(x[r], b, in_b[r], device=r)
    b = pld.tensor.allreduce(b, op=pld.ReduceOp.Sum)
    for r in pl.range(1, 3):
        read_back_dev(b, total[r], device=r)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ranks", type=int, default=3)
    ranks = parser.parse_args().ranks
    torch.manual_seed(0)
    x = torch.randn(ranks, 1, W)
    in_a = torch.full((ranks, 1, W), -1.0)
    in_b = torch.full((ranks, 1, W), -1.0)
    total = torch.zeros(ranks, 1, W)
    two_domains(x, in_a, in_b, total, config=RunConfig(distributed_config=DistributedConfig(world_size=ranks)))

    # Domain {0, 1}: device 0 is rank 0, device 1 rank 1; domain {1, 2}: device 1 is rank 0, device 2 rank 1.
    # (10 * rank + rank count.)
    assert in_a[:2, 0, 0].tolist() == [2.0, 12.0], in_a[:, 0, 0]
    assert in_b[1:3, 0, 0].tolist() == [2.0, 12.0], in_b[:, 0, 0]
    assert in_b[0, 0, 0].item() == -1  # device 0 never ran in b's domain
    torch.testing.assert_close(total[1], x[1] + x[2])
    torch.testing.assert_close(total[2], x[1] + x[2])
    print(f"{ranks} ranks: devices 0, 1 are ranks 0, 1 of domain {{0, 1}}; devices 1, 2 are ranks 0, 1 of domain "
          "{1, 2}, whose host allreduce summed rows 1 and 2")
    print("OK")


if __name__ == "__main__":
    main()
