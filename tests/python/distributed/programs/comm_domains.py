"""Comm domains: world ranks 1 and 2 allocate their windows with members=[1, 2] and run a kernel on them, in which
pld.rank / pld.nranks are their domain rank (0, 1) and size (2) and every peer is a domain rank: each passes its row
to its right neighbour in the domain, stores it into row `me` of domain rank 0's table, and the two allreduce a
window in their domain. Meanwhile world rank 0 runs the same kernel alone on windows of the domain {0}, and any
further rank runs nothing. Then ranks 1 and 2 run the host collectives on their domain's windows. Every rank checks
its results against torch; a failure on any rank fails the job.

    python comm_domains.py [--ranks 3]
"""

import argparse

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto.runtime import distributed, windows
from pypto.runtime.distributed import DistributedConfig

W = 64
MEMBERS = [1, 2]


@pl.jit.incore
def in_domain(x: pl.Tensor[[1, W], pl.FP32], inbox: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
              table: pl.InOut[pld.DistributedTensor[[2, W], pl.FP32]],
              total: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
              sig: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]],
              reduce_sig: pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32]],
              got: pl.Out[pl.Tensor[[1, W], pl.FP32]], rows: pl.Out[pl.Tensor[[2, W], pl.FP32]],
              summed: pl.Out[pl.Tensor[[1, W], pl.FP32]], seen: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
    ctx = pld.get_comm_ctx(inbox)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    right = (me + 1) % n
    row = pl.load(x, [0, 0], [1, W])
    pld.tile.remote_store(row, inbox, right, [0, 0])
    pld.tile.remote_store(row, table, 0, [me, 0])
    pld.system.notify(sig, right, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    pld.system.notify(sig, 0, [0, 1], 1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(sig, [0, 0], 1, cmp=pld.WaitCmp.Ge)
    if me == 0:
        pld.system.wait(sig, [0, 1], n, cmp=pld.WaitCmp.Ge)
    got = pl.store(pl.load(inbox, [0, 0], [1, W]), [0, 0], got)
    rows = pl.store(pl.load(table, [0, 0], [2, W]), [0, 0], rows)
    total = pl.store(row, [0, 0], total)
    total = pld.tensor.allreduce(total, reduce_sig, op=pld.ReduceOp.Sum)
    summed = pl.store(pl.load(total, [0, 0], [1, W]), [0, 0], summed)
    seen = pl.store(pl.tile.full([1, 8], dtype=pl.INT32, value=me * 10 + n), [0, 0], seen)
    return got, rows, summed, seen


@pl.jit
def in_domain_dev(x, inbox, table, total, sig, reduce_sig, got, rows, summed, seen):
    got, rows, summed, seen = in_domain(x, inbox, table, total, sig, reduce_sig, got, rows, summed, seen)
    return got, rows, summed, seen


def window(members, shape, dtype):
    count = 1
    for d in shape:
        count *= d
    return windows.allocate(count * dtype.itemsize, members=members).view(shape, dtype)


def run_kernel(members, x):
    """The kernel on windows of `members` (this rank among them); returns its outputs."""
    outs = (torch.zeros(1, W), torch.zeros(2, W), torch.zeros(1, W), torch.zeros(1, 8, dtype=torch.int32))
    in_domain_dev(x, window(members, [1, W], torch.float32), window(members, [2, W], torch.float32),
                  window(members, [1, W], torch.float32), window(members, [1, 8], torch.int32),
                  window(members, [2, 1], torch.int32), *outs)
    return outs


def check_allocation_errors(me: int, world: int) -> None:
    try:
        windows.allocate(64, members=[1, 0])
    except distributed.DistributedError as e:
        assert "distinct world ranks (ints) in ascending order, got [1, 0]" in str(e), e
    else:
        raise AssertionError("unsorted members were accepted")
    others = [r for r in range(world) if r != me]
    try:
        windows.allocate(64, members=others)
    except ValueError as e:
        assert "do not include this rank" in str(e), e
    else:
        raise AssertionError("a non-member allocated a domain's window")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ranks", type=int, default=3)
    world = parser.parse_args().ranks
    distributed.start(DistributedConfig(world_size=world))
    me = distributed.rank()
    torch.manual_seed(0)
    xs = torch.randn(world, 1, W)

    if me in MEMBERS:
        got, rows, summed, seen = run_kernel(MEMBERS, xs[me])
        d = MEMBERS.index(me)
        other = MEMBERS[1 - d]
        torch.testing.assert_close(got, xs[other], rtol=0, atol=0)
        torch.testing.assert_close(summed, xs[1] + xs[2])
        assert seen.eq(d * 10 + 2).all(), f"rank {me}: pld.rank * 10 + pld.nranks = {seen[0, 0]}, not {d * 10 + 2}"
        if d == 0:
            torch.testing.assert_close(rows, torch.cat([xs[1], xs[2]]), rtol=0, atol=0)

        # The host builtins in the domain: rows and roots are domain ranks.
        buffer = windows.allocate(4 * W, members=MEMBERS)
        assert buffer.members == (1, 2) and buffer.domain_rank == d, (buffer.members, buffer.domain_rank)
        data = buffer.view([1, W], torch.float32)
        sig = window(MEMBERS, [2, 1], torch.int32)
        data.copy_(xs[me])
        windows.allreduce_window(data, sig, 1)  # Max
        torch.testing.assert_close(data, torch.maximum(xs[1], xs[2]))
        data.copy_(xs[me])
        windows.broadcast_window(data, sig, 1)  # domain rank 1: world rank 2
        torch.testing.assert_close(data, xs[2], rtol=0, atol=0)
        gathered = window(MEMBERS, [2, W], torch.float32)
        windows.allgather_window(xs[me], gathered, sig)
        torch.testing.assert_close(gathered, torch.cat([xs[1], xs[2]]), rtol=0, atol=0)
        assert sig.eq(0).all(), "the credit barriers left the signal non-zero"
    elif me == 0:
        got, rows, summed, seen = run_kernel([0], xs[0])
        torch.testing.assert_close(got, xs[0], rtol=0, atol=0)
        torch.testing.assert_close(rows[0:1], xs[0], rtol=0, atol=0)
        torch.testing.assert_close(summed, xs[0])
        assert seen.eq(1).all(), f"rank 0 alone: pld.rank * 10 + pld.nranks = {seen[0, 0]}, not 1"
        world_buffer = windows.allocate(64)
        assert world_buffer.members == tuple(range(world)) and world_buffer.domain_rank == 0
    if me != 0:
        windows.allocate(64)  # the world window rank 0 allocates above
    check_allocation_errors(me, world)
    windows.barrier()
    print("OK")


if __name__ == "__main__":
    main()
