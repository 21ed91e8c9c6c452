"""Deferred waits: pld.system.defer_wait frees the core while a task waits for a peer's signal.

    python examples/distributed/09_defer_wait.py [--ranks 4]

Each rank pushes its row into the inbox of its right neighbour (`pld.tensor.put`) and sets the
neighbour's signal cell. Instead of a `pld.system.wait` that would hold a core until the signal
arrives, the chip program waits in a task of its own:

* `wait_left` (`allow_early_resolve=False`, `as arrived`) only registers "my cell >= 1" with the
  scheduler and returns. Its core is free at once, but the task stays incomplete until the cell
  holds.
* `double` does independent work on the free cores meanwhile.
* `use_left` (`deps=[arrived]`) is the continuation: it starts only once the signal arrived, so it
  reads the left neighbour's row. Order: write, signal, (deferred) wait, read.

Every rank ends with out[r] = x[r - 1] + 2 * x[r].
"""

import argparse

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto.runtime import RunConfig
from pypto.runtime.distributed import DistributedConfig

NR = pl.dynamic("NR")
W = 64


@pl.jit
def shift_and_add_dev(x: pl.Tensor[[1, W], pl.FP32], inbox: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
                      arrived_sig: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]],
                      doubled: pl.Out[pl.Tensor[[1, W], pl.FP32]], out: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="send_right"):
        ctx = pld.get_comm_ctx(inbox)
        right = (pld.rank(ctx) + 1) % pld.nranks(ctx)
        pld.tensor.put(inbox, right, x)
        pld.system.notify(arrived_sig, right, [0, 0], 1, op=pld.NotifyOp.Set)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="wait_left", allow_early_resolve=False) as arrived:
        pld.system.defer_wait(arrived_sig, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="double"):
        t = pl.load(x, [0, 0], [1, W])
        doubled = pl.store(pl.add(t, t), [0, 0], doubled)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="use_left", deps=[arrived]):
        left = pl.load(inbox, [0, 0], [1, W])
        out = pl.store(pl.add(left, pl.load(doubled, [0, 0], [1, W])), [0, 0], out)
    return doubled, out


@pl.jit.host
def shift_and_add(x: pl.Tensor[[NR, 1, W], pl.FP32], doubled: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]],
                  out: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]):
    inbox_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([1, 8], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        inbox = pld.window(inbox_buf, [1, W], dtype=pl.FP32)
        arrived_sig = pld.window(sig_buf, [1, 8], dtype=pl.INT32)
        shift_and_add_dev(x[r], inbox, arrived_sig, doubled[r], out[r], device=r)


def main() -> None:
    parser = argparse.ArgumentParser(description="pld.system.defer_wait: wait for a peer without holding a core")
    parser.add_argument("--ranks", type=int, default=4, help="number of ranks (default 4)")
    args = parser.parse_args()
    n = args.ranks
    config = RunConfig(distributed_config=DistributedConfig(world_size=n))

    torch.manual_seed(0)
    x = torch.randn(n, 1, W)
    doubled = torch.zeros(n, 1, W)
    out = torch.zeros(n, 1, W)
    shift_and_add(x, doubled, out, config=config)

    torch.testing.assert_close(out, torch.roll(x, 1, 0) + 2 * x, rtol=0, atol=0)
    print(f"{n} ranks: each rank's continuation read its left neighbour's row after a deferred wait")
    print("OK")


if __name__ == "__main__":
    main()
