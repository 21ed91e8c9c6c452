# pypto.program: in_loop
import pypto.language as pl

@pl.program
class in_loop:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:
        for i, (dst,) in pl.range(0, 4, 1, init_values=(out,)):
            row: pl.Scalar[pl.INDEX] = i * 64
            with pl.at(level=pl.Level.CORE_GROUP):
                blk: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.slice(a, [64, 64], [row, 0])
                e: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(blk)
                dst_1: pl.Tensor[[256, 64], pl.FP32] = pl.tensor.assemble(dst, e, [row, 0])
            r: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(dst_1)
        return r
