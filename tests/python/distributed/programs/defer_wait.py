"""pld.system.defer_wait between two ranks: rank 0 puts a row into rank 1's inbox and sets rank 1's signal to 1;
rank 1's deferred wait frees its core, and its continuation (deps=[tid]) reads the inbox once the signal arrived.
Rank 0 waits for >= 0, which holds at once. Both ranks also run an independent task while the wait is deferred.

    python defer_wait.py [--never]

With --never rank 1 waits for the signal to reach 2, which it never does: its deferred wait times out (after
2 s) with the report of a timed-out wait, and its continuation never runs.
"""

import argparse
import sys

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto.runtime import RunConfig
from pypto.runtime.distributed import DistributedConfig

NR = pl.dynamic("NR")
W = 64
EXPECTED = 2 if "--never" in sys.argv else 1     # what rank 1 waits for; every rank reads the same argv


@pl.jit
def receive_dev(x: pl.Tensor[[1, W], pl.FP32], inbox: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
                sig: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]],
                doubled: pl.Out[pl.Tensor[[1, W], pl.FP32]], got: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="send_to_1"):
        me = pld.rank(pld.get_comm_ctx(inbox))
        if me == 0:
            pld.tensor.put(inbox, 1, x)
            pld.system.notify(sig, 1, [0, 0], 1, op=pld.NotifyOp.Set)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="wait_for_0", allow_early_resolve=False) as arrived:
        me = pld.rank(pld.get_comm_ctx(sig))
        pld.system.defer_wait(sig, offsets=[0, 0], expected=me * EXPECTED, cmp=pld.WaitCmp.Ge)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="meanwhile"):
        doubled = pl.store(pl.add(pl.load(x, [0, 0], [1, W]), pl.load(x, [0, 0], [1, W])), [0, 0], doubled)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="use_inbox", deps=[arrived]):
        got = pl.store(pl.load(inbox, [0, 0], [1, W]), [0, 0], got)
    return doubled, got


@pl.jit.host
def exchange(x: pl.Tensor[[NR, 1, W], pl.FP32],
             doubled: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]], got: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]):
    inbox_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([1, 8], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        inbox = pld.window(inbox_buf, [1, W], dtype=pl.FP32)
        sig = pld.window(sig_buf, [1, 8], dtype=pl.INT32)
        receive_dev(x[r], inbox, sig, doubled[r], got[r], device=r)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--never", action="store_true", help="rank 1 waits for a value never sent: it times out")
    args = parser.parse_args()
    config = RunConfig(distributed_config=DistributedConfig(world_size=2, wait_timeout_s=2 if args.never else 60))
    x = torch.arange(2 * W, dtype=torch.float32).reshape(2, 1, W)
    doubled = torch.zeros(2, 1, W)
    got = torch.full((2, 1, W), -1.0)
    exchange(x, doubled, got, config=config)
    torch.testing.assert_close(doubled, 2 * x, rtol=0, atol=0)
    torch.testing.assert_close(got[1], x[0], rtol=0, atol=0)     # rank 0's row, put before the notify
    torch.testing.assert_close(got[0], torch.zeros(1, W), rtol=0, atol=0)  # rank 0's inbox: never written
    print("OK")


if __name__ == "__main__":
    main()
