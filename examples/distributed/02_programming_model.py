"""The three levels of a distributed program: host orchestrator -> chip program -> kernels.

    python examples/distributed/02_programming_model.py [--ranks 4]

* `@pl.jit.incore` kernels run on a chip's cores: `scale_rows` (x * 2 + r) and
  `relu_rows` (ReLU), each on one vector core.
* `@pl.jit` chip program `layer_dev` runs on one rank's chip and sequences the two
  kernels through a device tensor `h` (the runtime orders them by the data they share).
* `@pl.jit.host` orchestrator `layer_all` runs on the host, on every rank (SPMD): it loops
  over the ranks and dispatches the chip program with `device=r`; each rank executes
  only its own dispatch. Host tensors carry a leading rank dimension `[NR, ...]` and `x[r]`
  is rank r's slice. The rank number also reaches the kernels as the scalar `r`.

The host dispatches chip programs, never kernels; chip programs call kernels without
`device=`.
"""

import argparse

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto.runtime import RunConfig
from pypto.runtime.distributed import DistributedConfig

NR = pl.dynamic("NR")
R, W = 16, 64


@pl.jit.incore
def scale_rows(x: pl.Tensor[[R, W], pl.FP32], h: pl.Out[pl.Tensor[[R, W], pl.FP32]], r: pl.Scalar[pl.INT32]):
    t = pl.load(x, [0, 0], [R, W])
    return pl.store(pl.add(pl.mul(t, 2.0), pl.cast(r, pl.FP32)), [0, 0], h)


@pl.jit.incore
def relu_rows(h: pl.Tensor[[R, W], pl.FP32], y: pl.Out[pl.Tensor[[R, W], pl.FP32]]):
    return pl.store(pl.relu(pl.load(h, [0, 0], [R, W])), [0, 0], y)


@pl.jit
def layer_dev(x: pl.Tensor[[R, W], pl.FP32], y: pl.Out[pl.Tensor[[R, W], pl.FP32]], r: pl.Scalar[pl.INT32]):
    h = pl.create_tensor([R, W], pl.FP32)
    h = scale_rows(x, h, r)
    y = relu_rows(h, y)
    return y


@pl.jit.host
def layer_all(x: pl.Tensor[[NR, R, W], pl.FP32], y: pl.Out[pl.Tensor[[NR, R, W], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        layer_dev(x[r], y[r], r, device=r)


def main() -> None:
    parser = argparse.ArgumentParser(description="host orchestrator -> chip program -> kernels")
    parser.add_argument("--ranks", type=int, default=4, help="number of ranks (default 4)")
    args = parser.parse_args()
    config = RunConfig(distributed_config=DistributedConfig(world_size=args.ranks))

    torch.manual_seed(0)  # every rank draws the same inputs
    x = torch.randn(args.ranks, R, W)
    y = torch.zeros(args.ranks, R, W)
    layer_all(x, y, config=config)

    ranks = torch.arange(args.ranks, dtype=torch.float32).view(-1, 1, 1)
    torch.testing.assert_close(y, torch.relu(x * 2 + ranks))
    print(f"y[r] = relu(2 * x[r] + r) on {args.ranks} ranks; mean of each rank's slice: "
          f"{[round(v, 3) for v in y.mean(dim=(1, 2)).tolist()]}")
    print("OK")


if __name__ == "__main__":
    main()
