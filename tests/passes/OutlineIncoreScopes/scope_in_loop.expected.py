# pypto.program: in_loop
import pypto.language as pl

@pl.program
class in_loop:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:
        for i, (dst,) in pl.range(0, 4, 1, init_values=(out,)):
            row: pl.Scalar[pl.INDEX] = i * 64
            dst_1: pl.Tensor[[256, 64], pl.FP32] = self.main_incore_0(a, row, dst)
            r: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(dst_1)
        return r

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, a: pl.Tensor[[256, 64], pl.FP32], row: pl.Scalar[pl.INDEX], dst: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:
        blk: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.slice(a, [64, 64], [row, 0])
        e: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(blk)
        dst_1: pl.Tensor[[256, 64], pl.FP32] = pl.tensor.assemble(dst, e, [row, 0])
        return dst
