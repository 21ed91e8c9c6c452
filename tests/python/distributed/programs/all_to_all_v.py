"""pld.tensor.all_to_all_v in a kernel and as the host builtin: every rank sends block d (MAX_RECV rows) of its input
to rank d with a data-dependent row count; every rank checks its target blocks and recv_counts against torch.

    python all_to_all_v.py [--ranks 3]
"""

import argparse

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto.runtime import distributed, host_run, windows
from pypto.runtime.distributed import DistributedConfig

MAX_RECV, SIZE = 4, 64


def build(rows: int):
    """The chip program for `rows` = NR * MAX_RECV rows (the tile read back has a static shape)."""

    @pl.jit.incore
    def exchange(x: pl.Tensor, counts: pl.Tensor, target: pl.InOut[pl.Tensor], sig: pl.InOut[pl.Tensor],
                 recv: pl.InOut[pl.Tensor], out: pl.Out[pl.Tensor]):
        target = pld.tensor.all_to_all_v(x, target, sig, counts, recv)
        out = pl.store(pl.load(target, [0, 0], [rows, SIZE]), [0, 0], out)
        return out

    @pl.jit
    def exchange_dev(x, counts, target, sig, recv, out):
        out = exchange(x, counts, target, sig, recv, out)
        return out

    return exchange_dev


def window(shape, dtype):
    count = 1
    for d in shape:
        count *= d
    return windows.allocate(count * dtype.itemsize).view(shape, dtype)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ranks", type=int, default=3)
    nr = parser.parse_args().ranks
    distributed.start(DistributedConfig(world_size=nr))
    me = distributed.rank()
    rows = nr * MAX_RECV
    torch.manual_seed(0)
    xs = torch.randn(nr, rows, SIZE)                                            # xs[s]: rank s's input
    wanted = torch.randint(0, MAX_RECV + 3, (nr, nr), dtype=torch.int32)        # wanted[s, d]: rows s means for d
    # What rank `me` must receive: block s of its target = block me of rank s's input, counts clamped.
    blocks = torch.cat([xs[s, me * MAX_RECV:(me + 1) * MAX_RECV] for s in range(nr)])
    counts = wanted[:, me].clamp(max=MAX_RECV).view(nr, 1)

    target = window([rows, SIZE], torch.float32)
    sig = window([nr, 1], torch.int32)
    recv = window([nr, 1], torch.int32)
    out = torch.zeros(rows, SIZE)
    build(rows)(xs[me], wanted[me], target, sig, recv, out)
    torch.testing.assert_close(out, blocks, rtol=0, atol=0)
    torch.testing.assert_close(recv, counts, rtol=0, atol=0)

    # The host builtin (what a host orchestrator's pld.tensor.all_to_all_v runs on each rank): the same exchange,
    # negated, on fresh windows; the signal is reused (it is zero again).
    builtin = host_run.BUILTINS["tensor.all_to_all_v"]
    target2 = window([rows, SIZE], torch.float32)
    recv2 = window([nr, 1], torch.int32)
    builtin(None, -xs[me], target2, sig, wanted[me].view(nr, 1), recv2)
    torch.testing.assert_close(target2, -blocks, rtol=0, atol=0)
    torch.testing.assert_close(recv2, counts, rtol=0, atol=0)
    assert sig.eq(0).all(), "the credit barrier left the signal non-zero"
    try:
        builtin(None, -xs[me], target2, sig, wanted[me], window([nr, 1], torch.float32))
    except distributed.DistributedError as e:
        assert "must be INT32" in str(e), e
    else:
        raise AssertionError("an FP32 recv_counts was accepted")
    try:
        builtin(None, target2, target2, sig, wanted[me], recv2)
    except distributed.DistributedError as e:
        assert "input and target must be different windows" in str(e), e
    else:
        raise AssertionError("one window as input and target was accepted")
    windows.barrier()
    print("OK")


if __name__ == "__main__":
    main()
