# pypto.program: directions
import pypto.language as pl

@pl.program
class directions:
    @pl.function(type=pl.FunctionType.InCore)
    def copy(self, src: pl.Tensor[[64, 64], pl.FP32], dst: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(src)
        dst_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(dst, t, [0, 0])
        return dst_1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        b_1: pl.Tensor[[64, 64], pl.FP32] = self.copy(a, b, attrs={"arg_directions": ["Input", "OutputExisting"]})
        b_2: pl.Tensor[[64, 64], pl.FP32] = self.copy(a, b_1, attrs={"arg_directions": ["Input", "InOut"]})
        return b_2
