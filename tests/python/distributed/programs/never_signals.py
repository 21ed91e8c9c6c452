"""A rank that never signals: every rank waits for rank 1's notify, which rank 1 never sends.

    python never_signals.py [--ranks 3]

Every rank r != 1 notifies each peer at row r, then every rank waits until row 1 of its signal is >= 1.
Rank 1 skips its notifies. Rank 1's waits time out after 2 s, the others' after 8 s, so rank 1's wait is the
one that times out (with a report of its signal table) and the other ranks' waits stop with a report saying
that rank 1 timed out first. (Equal deadlines would let two ranks time out at once, each before it hears of the
other.)
"""

import argparse
import os

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto.runtime import RunConfig
from pypto.runtime.distributed import DistributedConfig

NR = pl.dynamic("NR")


@pl.jit.incore
def wait_for_rank1(sig: pl.InOut[pld.DistributedTensor[[NR, 1], pl.INT32]], out: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
    ctx = pld.get_comm_ctx(sig)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    if me != 1:
        for peer in pl.range(n):
            pld.system.notify(sig, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(sig, [1, 0], 1, cmp=pld.WaitCmp.Ge)
    return pl.store(pl.tile.full([1, 8], dtype=pl.INT32, value=1), [0, 0], out)


@pl.jit
def wait_for_rank1_dev(sig: pl.InOut[pld.DistributedTensor[[NR, 1], pl.INT32]],
                       out: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
    return wait_for_rank1(sig, out)


@pl.jit.host
def everyone_waits(out: pl.Out[pl.Tensor[[NR, 1, 8], pl.INT32]]):
    nr = pld.world_size()
    sig_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
    for r in pl.range(nr):
        wait_for_rank1_dev(pld.window(sig_buf, [nr, 1], dtype=pl.INT32), out[r], device=r)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ranks", type=int, default=3)
    args = parser.parse_args()
    out = torch.zeros(args.ranks, 1, 8, dtype=torch.int32)
    timeout = 2 if os.environ.get("OMPI_COMM_WORLD_RANK") == "1" else 8   # read by each rank as it starts
    config = RunConfig(distributed_config=DistributedConfig(world_size=args.ranks, wait_timeout_s=timeout))
    everyone_waits(out, config=config)
    print("not reached")


if __name__ == "__main__":
    main()
