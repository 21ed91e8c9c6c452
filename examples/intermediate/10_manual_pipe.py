"""A mixed kernel written by hand: the cube core streams partial products to the vector lanes.

    python examples/intermediate/10_manual_pipe.py

out = x @ w with K = 1024 in four blocks of 256, as a @pl.program of four
functions (docs/mixed-kernels.md, "Writing the kernels"):

- `partial_products`, an AIC kernel: for each K block it loads a block of x
  and of w, multiplies them on the cube and pushes the [64, 64] product
  into the cluster's cross-core pipe (`pl.tpush_to_aiv`), split UP_DOWN;
- `accumulate`, an AIV kernel run on both vector lanes: each lane pops its
  [32, 64] half of every product (`pl.tpop_from_aic`), adds it to its running
  sum, gives the slot back (`pl.tfree_to_aic`) and at the end stores its 32
  rows of `out`;
- `linear`, the Group: one cluster task running the AIC kernel and the AIV
  kernel on both lanes (called twice), all with the same arguments;
- `main`, the Orchestration: submits the Group.

Both ends initialize the pipe with the same numbers: one direction (cube to
vector, dir_mask=1), slots of 32 x 64 FP32 (what one lane receives) and two
slots, so the cube core can be one product ahead of the lanes. Every push
has one pop per lane and every pop its free; the compiler checks the counts
(the loops have literal bounds), and the simulator reports a pipe that
deadlocks. This is what ExpandMixedKernel generates from one pl.at scope
(examples/intermediate/08_mixed_fused_linear.py), written out.
"""

import torch

import pypto.language as pl
from pypto import ir
from pypto.runtime import RunConfig

M, K, N = 64, 1024, 64
KB = 256  # K per block: a [64, 256] FP16 block of x is 512 bytes a row, a whole transfer burst
HALF = M // 2  # rows per vector lane
SLOT_BYTES = HALF * N * 4  # one lane's half of a [64, 64] FP32 product


@pl.program
class StreamedMatmul:
    @pl.function(type=pl.FunctionType.AIC)
    def partial_products(self, x: pl.Tensor[[M, K], pl.FP16], w: pl.Tensor[[K, N], pl.FP16],
                         out: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        pl.aic_initialize_pipe(dir_mask=1, slot_size=SLOT_BYTES, slot_num=2)
        for k in pl.range(0, K, KB):
            part = pl.matmul(pl.load(x, [0, k], [M, KB], target_memory=pl.Mem.Mat),
                             pl.load(w, [k, 0], [KB, N], target_memory=pl.Mem.Mat))
            pl.tpush_to_aiv(part, split=1)  # UP_DOWN: rows 0-31 to lane 0, rows 32-63 to lane 1
        return

    @pl.function(type=pl.FunctionType.AIV)
    def accumulate(self, x: pl.Tensor[[M, K], pl.FP16], w: pl.Tensor[[K, N], pl.FP16],
                   out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        lane = pl.tile.get_subblock_idx()
        pl.aiv_initialize_pipe(dir_mask=1, slot_size=SLOT_BYTES, slot_num=2)
        acc = pl.tile.full([HALF, N], 0.0, dtype=pl.FP32)
        for k in pl.range(0, K, KB):
            part = pl.tpop_from_aic(shape=[HALF, N], dtype=pl.FP32, split=1)
            acc = pl.add(acc, part)
            pl.tfree_to_aic(part)  # after the last use of `part`: its slot goes back to the cube core
        out = pl.store(acc, [lane * HALF, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Group)
    def linear(self, x: pl.Tensor[[M, K], pl.FP16], w: pl.Tensor[[K, N], pl.FP16],
               out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        self.partial_products(x, w, out)
        self.accumulate(x, w, out)  # lane 0
        out = self.accumulate(x, w, out)  # lane 1
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[M, K], pl.FP16], w: pl.Tensor[[K, N], pl.FP16],
             out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        out = self.linear(x, w, out)
        return out


def main() -> None:
    torch.manual_seed(0)
    x, w = torch.randn(M, K).half(), torch.randn(K, N).half()
    out = torch.zeros(M, N)
    # The output (kernels/aic/partial_products.cpp, kernels/aiv/accumulate.cpp, ...) goes to
    # build_output/StreamedMatmul_<time>/, or to a folder given as ir.compile's second argument.
    compiled = ir.compile(StreamedMatmul, config=RunConfig(platform="a2a3sim"))
    compiled(x, w, out)
    torch.testing.assert_close(out, x.float() @ w.float(), rtol=1e-4, atol=1e-3)
    print("OK")


if __name__ == "__main__":
    main()
