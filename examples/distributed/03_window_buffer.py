"""Window buffers: symmetric per-rank memory, and typed views of it.

    python examples/distributed/03_window_buffer.py [--ranks 4]

* `pld.alloc_window_buffer(nbytes)` takes a size in **bytes**;
  `pld.alloc_window_buffer([d0, d1], dtype=...)` computes it from a shape and a dtype.
  Every rank allocates the same buffers (the host orchestrator runs on each), zeroed.
* `pld.window(buf, shape, dtype=...)` is a typed view, a `pld.DistributedTensor`; several
  views of one buffer alias the same bytes.
* In a kernel, `pl.load` / `pl.store` on a window touch this rank's memory only (peers
  are reached with the `pld` transfers of the next examples).

Here each rank adds its input to the (zeroed) rows of its window through a `[2, W]` view,
then a second kernel reads the same bytes through a flat `[1, 2W]` view, and a third
reads an INT32 counter window allocated from a shape.
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
def accumulate_rows(x: pl.Tensor[[2, W], pl.FP32], rows: pl.InOut[pld.DistributedTensor[[2, W], pl.FP32]]):
    old = pl.load(rows, [0, 0], [2, W])       # zeros: windows are zeroed at allocation
    return pl.store(pl.add(old, pl.load(x, [0, 0], [2, W])), [0, 0], rows)


@pl.jit.incore
def read_flat(flat: pl.InOut[pld.DistributedTensor[[1, 2 * W], pl.FP32]],
              out: pl.Out[pl.Tensor[[1, 2 * W], pl.FP32]]):
    return pl.store(pl.load(flat, [0, 0], [1, 2 * W]), [0, 0], out)


@pl.jit.incore
def read_counters(counters: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]],
                  out: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
    return pl.store(pl.load(counters, [0, 0], [1, 8]), [0, 0], out)


@pl.jit
def window_dev(x: pl.Tensor[[2, W], pl.FP32], rows: pl.InOut[pld.DistributedTensor[[2, W], pl.FP32]],
               flat: pl.InOut[pld.DistributedTensor[[1, 2 * W], pl.FP32]],
               counters: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]],
               out: pl.Out[pl.Tensor[[1, 2 * W], pl.FP32]], zeros: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
    rows = accumulate_rows(x, rows)
    out = read_flat(flat, out)
    zeros = read_counters(counters, zeros)
    return out, zeros


@pl.jit.host
def window_views(x: pl.Tensor[[NR, 2, W], pl.FP32], out: pl.Out[pl.Tensor[[NR, 1, 2 * W], pl.FP32]],
                 zeros: pl.Out[pl.Tensor[[NR, 1, 8], pl.INT32]]):
    data_buf = pld.alloc_window_buffer(2 * W * 4)                   # bytes: 2 x W FP32 elements
    counter_buf = pld.alloc_window_buffer([1, 8], dtype=pl.INT32)    # the same from a shape and a dtype
    for r in pl.range(pld.world_size()):
        rows = pld.window(data_buf, [2, W], dtype=pl.FP32)
        flat = pld.window(data_buf, [1, 2 * W], dtype=pl.FP32)       # the same bytes, another shape
        counters = pld.window(counter_buf, [1, 8], dtype=pl.INT32)
        window_dev(x[r], rows, flat, counters, out[r], zeros[r], device=r)


def main() -> None:
    parser = argparse.ArgumentParser(description="window buffers and views")
    parser.add_argument("--ranks", type=int, default=4, help="number of ranks (default 4)")
    args = parser.parse_args()
    config = RunConfig(distributed_config=DistributedConfig(world_size=args.ranks))

    torch.manual_seed(0)
    x = torch.randn(args.ranks, 2, W)
    out = torch.zeros(args.ranks, 1, 2 * W)
    zeros = torch.full((args.ranks, 1, 8), -1, dtype=torch.int32)
    window_views(x, out, zeros, config=config)

    torch.testing.assert_close(out, x.reshape(args.ranks, 1, 2 * W), rtol=0, atol=0)
    torch.testing.assert_close(zeros, torch.zeros_like(zeros), rtol=0, atol=0)
    print(f"{args.ranks} ranks: the [2, {W}] rows read back through the [1, {2 * W}] view; "
          "the counter window starts at zero")
    print("OK")


if __name__ == "__main__":
    main()
