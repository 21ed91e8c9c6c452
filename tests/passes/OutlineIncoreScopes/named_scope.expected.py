# pypto.program: outline
import pypto.language as pl

@pl.program
class outline:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out_1: pl.Tensor[[64, 64], pl.FP32] = self.scale(a, out)
        return out_1

    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.muls(a, 2.0)
        out_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(out, t, [0, 0])
        return out
