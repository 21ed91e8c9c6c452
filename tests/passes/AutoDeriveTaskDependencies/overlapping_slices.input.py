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
        top: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.slice(b, [32, 64], [0, 0])
        middle: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.slice(b, [32, 64], [16, 0])
        a_top: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.slice(a, [32, 64], [0, 0])
        top_1: pl.Tensor[[32, 64], pl.FP32] = self.half(a_top, top, attrs={"arg_directions": ["Input", "OutputExisting"]})
        middle_1: pl.Tensor[[32, 64], pl.FP32] = self.half(a_top, middle, attrs={"arg_directions": ["Input", "OutputExisting"]})
        return b
