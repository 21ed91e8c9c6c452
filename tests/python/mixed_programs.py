"""Mixed kernels several test files run.

PushPop, written by hand: an AIC kernel pushes the two 16-row halves of x through the cluster's cross-core pipe;
an AIV kernel pops each, adds one and stores it (docs/mixed-kernels.md). shard_rows and gather_columns are split
by hand with pl.split_aiv: each lane takes its rows of a cube result (aiv_shard), or the cube takes both lanes'
columns (aic_gather)."""

import pypto.language as pl


@pl.program
class PushPop:
    @pl.function(type=pl.FunctionType.AIC)
    def producer(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        pl.aic_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=2)
        top = pl.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        pl.tpush_to_aiv(top)
        bottom = pl.load(x, [16, 0], [16, 64], target_memory=pl.Mem.Mat)
        pl.tpush_to_aiv(bottom)
        return

    @pl.function(type=pl.FunctionType.AIV)
    def consumer(self, x: pl.Tensor[[32, 64], pl.FP32],
                 out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        pl.aiv_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=2)
        a = pl.tpop_from_aic(shape=[16, 64], dtype=pl.FP32)
        out = pl.store(pl.add(a, 1.0), [0, 0], out)
        pl.tfree_to_aic(a)
        b = pl.tpop_from_aic(shape=[16, 64], dtype=pl.FP32)
        out = pl.store(pl.add(b, 1.0), [16, 0], out)
        pl.tfree_to_aic(b)
        return out

    @pl.function(type=pl.FunctionType.Group)
    def mixed(self, x: pl.Tensor[[32, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        self.producer(x, out)
        out = self.consumer(x, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        out = self.mixed(x, out)
        return out


@pl.jit
def shard_rows(x: pl.Tensor[[64, 128], pl.FP16], w: pl.Tensor[[128, 64], pl.FP16], b: pl.Tensor[[1, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(pl.load(x, [0, 0], [64, 128], target_memory=pl.Mem.Mat),
                        pl.load(w, [0, 0], [128, 64], target_memory=pl.Mem.Mat))
        for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            rows = pl.aiv_shard(acc)
            out = pl.store(pl.relu(pl.col_expand_add(rows, pl.load(b, [0, 0], [1, 64]))), [lane * 32, 0], out)
    return out


@pl.jit
def gather_columns(x: pl.Tensor[[64, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32],
                   out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for lane in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
            scaled = pl.mul(pl.load(x, [0, lane * 32], [64, 32]), 2.0)
        whole = pl.aic_gather(scaled)
        out = pl.store(pl.matmul(whole, pl.load(w, [0, 0], [64, 64], target_memory=pl.Mem.Mat)), [0, 0], out)
    return out
