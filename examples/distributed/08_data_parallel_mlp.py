"""Data-parallel training step of a 2-layer MLP: local forward + backward, allreduce of the gradients, SGD.

    python examples/distributed/08_data_parallel_mlp.py [--ranks 4]

Model: y = relu(x @ w1) @ w2, loss = sum((y - target)^2) / (2 B) over the full batch of
B = ranks * BS rows. Each rank holds the same weights and a shard of BS rows of the batch.

* `grads_dev` (one rank's chip): the forward and backward pass on the shard. The matmuls
  run on the cube through tensor-level `pl.matmul` in `pl.at` regions, including the
  transposed operands of the backward pass (`a_trans=True` for x^T @ dh and a^T @ dy,
  `b_trans=True` for dy @ w2^T); ReLU, the loss gradient and the ReLU mask
  (`pl.tile.cmps` + `pl.tile.sel`) run on a vector core. The weight gradients are written
  straight into window buffers.
* `pld.tensor.allreduce` sums the gradient windows over the ranks (once with
  `mode="mesh"`, once with `mode="ring"`). Because each shard's loss gradient is already
  divided by the full batch size, the sum is the full-batch gradient.
* `sgd_dev`: every rank applies w -= lr * g to its copy of the weights.

The weights after the step match torch autograd on the whole batch on every rank.
"""

import argparse

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto.runtime import RunConfig
from pypto.runtime.distributed import DistributedConfig

NR = pl.dynamic("NR")
BS, D, H, O = 16, 48, 64, 24   # rows per rank, inputs, hidden units, outputs (D*H and H*O split into 2, 3, 4)
LR = 0.5


@pl.jit.incore
def relu_fwd(h: pl.Tensor[[BS, H], pl.FP32], a: pl.Out[pl.Tensor[[BS, H], pl.FP32]]):
    return pl.store(pl.relu(pl.load(h, [0, 0], [BS, H])), [0, 0], a)


@pl.jit.incore
def loss_grad(y: pl.Tensor[[BS, O], pl.FP32], target: pl.Tensor[[BS, O], pl.FP32],
              dy: pl.Out[pl.Tensor[[BS, O], pl.FP32]], inv_batch: pl.Scalar[pl.FP32]):
    diff = pl.sub(pl.load(y, [0, 0], [BS, O]), pl.load(target, [0, 0], [BS, O]))
    return pl.store(pl.mul(diff, inv_batch), [0, 0], dy)


@pl.jit.incore
def relu_bwd(h: pl.Tensor[[BS, H], pl.FP32], da: pl.Tensor[[BS, H], pl.FP32],
             dh: pl.Out[pl.Tensor[[BS, H], pl.FP32]]):
    th = pl.load(h, [0, 0], [BS, H])
    positive = pl.tile.cmps(th, 0.0, cmp_type=4)                 # h > 0
    zero = pl.tile.full([BS, H], dtype=pl.FP32, value=0.0)
    return pl.store(pl.tile.sel(positive, pl.load(da, [0, 0], [BS, H]), zero), [0, 0], dh)


@pl.jit
def grads_dev(x: pl.Tensor[[BS, D], pl.FP32], target: pl.Tensor[[BS, O], pl.FP32],
              w1: pl.Tensor[[D, H], pl.FP32], w2: pl.Tensor[[H, O], pl.FP32],
              g1: pl.InOut[pld.DistributedTensor[[D, H], pl.FP32]],
              g2: pl.InOut[pld.DistributedTensor[[H, O], pl.FP32]], inv_batch: pl.Scalar[pl.FP32]):
    h = pl.create_tensor([BS, H], pl.FP32)
    a = pl.create_tensor([BS, H], pl.FP32)
    y = pl.create_tensor([BS, O], pl.FP32)
    dy = pl.create_tensor([BS, O], pl.FP32)
    da = pl.create_tensor([BS, H], pl.FP32)
    dh = pl.create_tensor([BS, H], pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="fc1"):
        h = pl.assemble(h, pl.matmul(x, w1, out_dtype=pl.FP32), [0, 0])
    a = relu_fwd(h, a)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="fc2"):
        y = pl.assemble(y, pl.matmul(a, w2, out_dtype=pl.FP32), [0, 0])
    dy = loss_grad(y, target, dy, inv_batch)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="grad_w2"):       # a^T @ dy
        g2 = pl.assemble(g2, pl.matmul(a, dy, a_trans=True, out_dtype=pl.FP32), [0, 0])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="grad_a"):        # dy @ w2^T
        da = pl.assemble(da, pl.matmul(dy, w2, b_trans=True, out_dtype=pl.FP32), [0, 0])
    dh = relu_bwd(h, da, dh)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="grad_w1"):       # x^T @ dh
        g1 = pl.assemble(g1, pl.matmul(x, dh, a_trans=True, out_dtype=pl.FP32), [0, 0])
    return g1, g2


@pl.jit.incore
def sgd_w1(w: pl.Tensor[[D, H], pl.FP32], g: pl.InOut[pld.DistributedTensor[[D, H], pl.FP32]],
           new_w: pl.Out[pl.Tensor[[D, H], pl.FP32]]):
    step = pl.mul(pl.load(g, [0, 0], [D, H]), LR)
    return pl.store(pl.sub(pl.load(w, [0, 0], [D, H]), step), [0, 0], new_w)


@pl.jit.incore
def sgd_w2(w: pl.Tensor[[H, O], pl.FP32], g: pl.InOut[pld.DistributedTensor[[H, O], pl.FP32]],
           new_w: pl.Out[pl.Tensor[[H, O], pl.FP32]]):
    step = pl.mul(pl.load(g, [0, 0], [H, O]), LR)
    return pl.store(pl.sub(pl.load(w, [0, 0], [H, O]), step), [0, 0], new_w)


@pl.jit
def sgd_dev(w1: pl.Tensor[[D, H], pl.FP32], w2: pl.Tensor[[H, O], pl.FP32],
            g1: pl.InOut[pld.DistributedTensor[[D, H], pl.FP32]], g2: pl.InOut[pld.DistributedTensor[[H, O], pl.FP32]],
            new_w1: pl.Out[pl.Tensor[[D, H], pl.FP32]], new_w2: pl.Out[pl.Tensor[[H, O], pl.FP32]]):
    new_w1 = sgd_w1(w1, g1, new_w1)
    new_w2 = sgd_w2(w2, g2, new_w2)
    return new_w1, new_w2


@pl.jit.host
def train_step(x: pl.Tensor[[NR, BS, D], pl.FP32], target: pl.Tensor[[NR, BS, O], pl.FP32],
               w1: pl.Tensor[[D, H], pl.FP32], w2: pl.Tensor[[H, O], pl.FP32],
               new_w1: pl.Out[pl.Tensor[[NR, D, H], pl.FP32]], new_w2: pl.Out[pl.Tensor[[NR, H, O], pl.FP32]]):
    nr = pld.world_size()
    g1_buf = pld.alloc_window_buffer([D, H], dtype=pl.FP32)
    g2_buf = pld.alloc_window_buffer([H, O], dtype=pl.FP32)
    g1 = pld.window(g1_buf, [D, H], dtype=pl.FP32)
    g2 = pld.window(g2_buf, [H, O], dtype=pl.FP32)
    for r in pl.range(nr):
        grads_dev(x[r], target[r], w1, w2, g1, g2, 1.0 / (nr * BS), device=r)
    g1 = pld.tensor.allreduce(g1, op=pld.ReduceOp.Sum)                  # mesh
    g2 = pld.tensor.allreduce(g2, op=pld.ReduceOp.Sum, mode="ring")     # FP32 Sum, numel % ranks == 0
    for r in pl.range(nr):
        sgd_dev(w1, w2, g1, g2, new_w1[r], new_w2[r], device=r)


def reference_step(x, target, w1, w2):
    """torch autograd on the full batch."""
    w1 = w1.clone().requires_grad_()
    w2 = w2.clone().requires_grad_()
    y = torch.relu(x @ w1) @ w2
    loss = ((y - target) ** 2).sum() / (2 * x.shape[0])
    loss.backward()
    with torch.no_grad():
        return w1 - LR * w1.grad, w2 - LR * w2.grad, loss.item()


def main() -> None:
    parser = argparse.ArgumentParser(description="one data-parallel SGD step of a 2-layer MLP")
    parser.add_argument("--ranks", type=int, default=4, help="number of ranks (default 4)")
    args = parser.parse_args()
    n = args.ranks
    config = RunConfig(distributed_config=DistributedConfig(world_size=n))

    torch.manual_seed(0)                       # every rank draws the same data and weights
    x = torch.randn(n, BS, D)
    target = torch.randn(n, BS, O)
    w1 = torch.randn(D, H) / D ** 0.5
    w2 = torch.randn(H, O) / H ** 0.5
    new_w1, new_w2 = torch.zeros(n, D, H), torch.zeros(n, H, O)
    train_step(x, target, w1, w2, new_w1, new_w2, config=config)

    ref_w1, ref_w2, loss = reference_step(x.reshape(n * BS, D), target.reshape(n * BS, O), w1, w2)
    for r in range(n):                         # every rank's copy of the weights
        torch.testing.assert_close(new_w1[r], ref_w1, rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(new_w2[r], ref_w2, rtol=1e-4, atol=1e-5)
    change = (new_w1[0] - w1).abs().max().item()
    print(f"{n} ranks x {BS} rows: loss before the step {loss:.4f}; largest change of w1 {change:.4f}; "
          "weights match torch autograd on the full batch")
    print("OK")


if __name__ == "__main__":
    main()
