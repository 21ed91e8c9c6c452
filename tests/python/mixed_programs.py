"""A hand-written mixed kernel several test files run: an AIC kernel pushes the two 16-row halves of x through
the cluster's cross-core pipe; an AIV kernel pops each, adds one and stores it (docs/mixed-kernels.md)."""

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
