"""Explicit dispatch: compile once, keep a weight resident on the device, run in a hot loop.

    python examples/runtime/01_explicit_dispatch.py

`kernel.compile(...)` returns the CompiledProgram without running it; a
ChipWorker allocates the weight once (alloc_tensor with init=), and the
registered handle runs the program on it eight times without rebinding.
"""

import torch

import pypto.language as pl
from pypto.runtime import ChipWorker, RunConfig


@pl.jit
def scale_rows(x: pl.Tensor[[64, 256], pl.FP32], w: pl.Tensor[[1, 256], pl.FP32],
               y: pl.Out[pl.Tensor[[64, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [64, 256])
        pl.store(pl.col_expand_mul(t, pl.load(w, [0, 0], [1, 256])), [0, 0], y)
    return y


def main() -> None:
    torch.manual_seed(0)
    config = RunConfig(platform="a2a3sim")
    w_host = torch.randn(1, 256)
    x, y = torch.randn(64, 256), torch.zeros(64, 256)
    compiled = scale_rows.compile(x, w_host, y, config=config)
    with ChipWorker(config=config) as worker:
        w = worker.alloc_tensor((1, 256), torch.float32, init=w_host)
        handle = worker.register(compiled)
        for step in range(8):
            x = torch.full((64, 256), float(step))
            handle(x, w, y)
            torch.testing.assert_close(y, x * w_host)
        worker.free_tensor(w)
    print("OK")


if __name__ == "__main__":
    main()
