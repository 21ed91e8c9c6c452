"""A linear layer as one mixed kernel: matmul on the cube core, bias + ReLU on both vector lanes.

    python examples/intermediate/08_mixed_fused_linear.py

The whole layer is one `pl.at` scope. The compiler (the ExpandMixedKernel
pass, docs/mixed-kernels.md) splits it into an AIC kernel, which keeps w in
L1 and multiplies one 32-row block of x by it per step of the loop, and an
AIV kernel, which adds the bias and applies the ReLU. The two run at the
same time on one cluster as a single task, joined by the cluster's
cross-core pipe: each step the AIC pushes its [32, 64] result, and with
`pl.split(pl.SplitMode.UP_DOWN)` each of the two vector lanes pops its 16
rows, adds the bias (a [1, 64] row, which every lane loads whole), applies
the ReLU, frees the pipe slot and stores its rows of `out`. With two slots
(`pl.cross_core_slot(slot_num=2)`) the cube core can compute the next block
while the lanes work on the last one.

Compare examples/intermediate/01_fused_linear.py: there the same layer is
two kernels, two tasks the runtime orders through an intermediate tensor `h`
in global memory (the matmul stores it, the bias + ReLU kernel loads it
back), and the vector work runs on one lane. Here the matmul result never
goes through global memory and the vector work is shared by both lanes.
"""

import torch

import pypto.language as pl
from pypto.runtime import RunConfig

M, K, N = 64, 128, 64
ROWS = 32  # rows of x per step of the loop: each lane gets 16 of them


@pl.jit
def linear_relu(x: pl.Tensor[[M, K], pl.FP16], w: pl.Tensor[[K, N], pl.FP16],
                bias: pl.Tensor[[1, N], pl.FP32], out: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="linear",
               optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=2)]):
        tw = pl.load(w, [0, 0], [K, N], target_memory=pl.Mem.Mat)  # cube core: w stays in L1
        tb = pl.load(bias, [0, 0], [1, N])  # vector lanes: each loads the whole [1, N] row
        for r in pl.range(0, M, ROWS):
            # Cube core: one row block of x @ w.
            acc = pl.matmul(pl.load(x, [r, 0], [ROWS, K], target_memory=pl.Mem.Mat), tw)
            # Vector lanes: the block crosses the pipe here, 16 rows to each lane, which adds
            # the bias, applies the ReLU and stores its rows.
            pl.store(pl.relu(pl.col_expand_add(acc, tb)), [r, 0], out)
    return out


def main() -> None:
    torch.manual_seed(0)
    x, w = torch.randn(M, K).half(), torch.randn(K, N).half()
    bias = torch.randn(1, N)
    out = torch.zeros(M, N)
    linear_relu(x, w, bias, out, config=RunConfig())
    torch.testing.assert_close(out, torch.relu(x.float() @ w.float() + bias), rtol=1e-4, atol=1e-3)
    print("OK")


if __name__ == "__main__":
    main()
