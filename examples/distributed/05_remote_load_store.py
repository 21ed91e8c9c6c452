"""One-sided tile transfers between ranks: pld.tile.remote_store / remote_load with signals.

    python examples/distributed/05_remote_load_store.py [--ranks 4]

Three patterns, each a kernel of its own dispatched in turn, with its own windows:

* **Token ring** (`Set` / `Eq`, each cell has one writer): rank 0 starts; rank r waits until
  its token cell holds r, then sets r + 1 on rank r + 1; rank 0 finally waits for n. Each
  rank reports the token it saw: rank 0 -> n, rank r -> r.
* **Neighbour exchange** (push): each rank `remote_store`s its row into the inbox of its
  right neighbour, then notifies that neighbour (`AtomicAdd`); it waits on its own cell
  and reads its inbox (`remote_load` with `peer = me` is a local read).
* **Accumulate into rank 0** (`atomic=Add`, many writers -> `AtomicAdd` + `Ge`): every
  rank adds its row into rank 0's accumulator; ranks != 0 add 1 to rank 0's counter and
  rank 0 waits until it reaches n - 1. Push order: write, then signal.
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
def token_ring(tok: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]], seen: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
    ctx = pld.get_comm_ctx(tok)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    if me != 0:
        pld.system.wait(tok, [0, 0], me, cmp=pld.WaitCmp.Eq)
    pld.system.notify(tok, (me + 1) % n, [0, 0], me + 1, op=pld.NotifyOp.Set)
    if me == 0:
        pld.system.wait(tok, [0, 0], n, cmp=pld.WaitCmp.Eq)
    return pl.store(pl.load(tok, [0, 0], [1, 8]), [0, 0], seen)


@pl.jit.incore
def pass_right(x: pl.Tensor[[1, W], pl.FP32], inbox: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
               sig: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]], got: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    ctx = pld.get_comm_ctx(inbox)
    me = pld.rank(ctx)
    right = (me + 1) % pld.nranks(ctx)
    pld.tile.remote_store(pl.load(x, [0, 0], [1, W]), inbox, right, [0, 0])
    pld.system.notify(sig, right, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(sig, [0, 0], 1, cmp=pld.WaitCmp.Ge)
    return pl.store(pld.tile.remote_load(inbox, me, [0, 0], [1, W]), [0, 0], got)


@pl.jit.incore
def sum_into_rank0(x: pl.Tensor[[1, W], pl.FP32], acc: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
                   arrived: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]],
                   total: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    ctx = pld.get_comm_ctx(acc)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    pld.tile.remote_store(pl.load(x, [0, 0], [1, W]), acc, 0, [0, 0], atomic=pld.AtomicType.Add)
    if me != 0:
        pld.system.notify(arrived, 0, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    if me == 0:
        pld.system.wait(arrived, [0, 0], n - 1, cmp=pld.WaitCmp.Ge)
    return pl.store(pl.load(acc, [0, 0], [1, W]), [0, 0], total)  # the sum on rank 0, zeros elsewhere


@pl.jit
def token_ring_dev(tok: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]], seen: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
    return token_ring(tok, seen)


@pl.jit
def pass_right_dev(x: pl.Tensor[[1, W], pl.FP32], inbox: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
                   sig: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]], got: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    return pass_right(x, inbox, sig, got)


@pl.jit
def sum_into_rank0_dev(x: pl.Tensor[[1, W], pl.FP32], acc: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
                       arrived: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]],
                       total: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    return sum_into_rank0(x, acc, arrived, total)


@pl.jit.host
def transfers(x: pl.Tensor[[NR, 1, W], pl.FP32], seen: pl.Out[pl.Tensor[[NR, 1, 8], pl.INT32]],
              got: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]], total: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]):
    tok_buf = pld.alloc_window_buffer([1, 8], dtype=pl.INT32)
    inbox_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([1, 8], dtype=pl.INT32)
    acc_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([1, 8], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        token_ring_dev(pld.window(tok_buf, [1, 8], dtype=pl.INT32), seen[r], device=r)
    for r in pl.range(pld.world_size()):
        inbox = pld.window(inbox_buf, [1, W], dtype=pl.FP32)
        sig = pld.window(sig_buf, [1, 8], dtype=pl.INT32)
        pass_right_dev(x[r], inbox, sig, got[r], device=r)
    for r in pl.range(pld.world_size()):
        acc = pld.window(acc_buf, [1, W], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [1, 8], dtype=pl.INT32)
        sum_into_rank0_dev(x[r], acc, arrived, total[r], device=r)


def main() -> None:
    parser = argparse.ArgumentParser(description="remote_load / remote_store with signals")
    parser.add_argument("--ranks", type=int, default=4, help="number of ranks (default 4)")
    args = parser.parse_args()
    n = args.ranks
    config = RunConfig(distributed_config=DistributedConfig(world_size=n))

    torch.manual_seed(0)
    x = torch.randn(n, 1, W)
    seen = torch.full((n, 1, 8), -1, dtype=torch.int32)
    got = torch.zeros(n, 1, W)
    total = torch.full((n, 1, W), -1.0)
    transfers(x, seen, got, total, config=config)

    tokens = seen[:, 0, 0]
    torch.testing.assert_close(tokens, torch.tensor([n] + list(range(1, n)), dtype=torch.int32), rtol=0, atol=0)
    torch.testing.assert_close(got, torch.roll(x, 1, 0), rtol=0, atol=0)
    torch.testing.assert_close(total[0], x.sum(dim=0))        # atomic adds in any order: FP32 rounding
    torch.testing.assert_close(total[1:], torch.zeros(n - 1, 1, W), rtol=0, atol=0)
    print(f"{n} ranks: tokens seen {tokens.tolist()}; each rank got its left neighbour's row; "
          f"rank 0 accumulated {n} rows")
    print("OK")


if __name__ == "__main__":
    main()
