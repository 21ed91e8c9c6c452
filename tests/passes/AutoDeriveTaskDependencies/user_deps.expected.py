# pypto.program: deps
import pypto.language as pl

@pl.program
class deps:
    @pl.function(type=pl.FunctionType.InCore)
    def copy(self, src: pl.Tensor[[64, 64], pl.FP32], dst: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(src)
        dst_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(dst, t, [0, 0])
        return dst

    @pl.function(type=pl.FunctionType.InCore)
    def half(self, src: pl.Tensor[[32, 64], pl.FP32], dst: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.exp(src)
        dst_1: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.assemble(dst, t, [0, 0])
        return dst

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Out[pl.Tensor[[64, 64], pl.FP32]], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        b_1, first = pl.submit(self.copy, c, b, attrs={"arg_directions": ["Input", "OutputExisting"]})
        a_1, copy_tid = pl.submit(self.copy, c, a, attrs={"arg_directions": ["Input", "OutputExisting"]})
        c_1, _ = pl.submit(self.copy, b_1, c, deps=[first], attrs={"arg_directions": ["Input", "OutputExisting"], "compiler_deps": [copy_tid]})
        return c_1
