"""A task graph: an inferred edge (through `stage`) and a declared one (deps=[first]).

    python examples/intermediate/07_task_graph.py
"""

import torch

import pypto.language as pl
from pypto.runtime import RunConfig


@pl.jit
def two_stages(x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    stage = pl.create_tensor([64, 64], pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP) as first:
        stage[:] = pl.exp(x)
    with pl.at(level=pl.Level.CORE_GROUP, deps=[first]):
        y[:] = pl.add(stage, x)
    return y


def main() -> None:
    torch.manual_seed(0)
    x = torch.randn(64, 64)
    y = torch.zeros(64, 64)
    two_stages(x, y, config=RunConfig())
    torch.testing.assert_close(y, torch.exp(x) + x)
    print("OK")


if __name__ == "__main__":
    main()
