# pypto.program: live_outs
import pypto.language as pl

@pl.program
class live_outs:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[64, 64], pl.FP32], s: pl.Scalar[pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        y: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.muls(x, s)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], s: pl.Scalar[pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.cluster():
            sa: pl.Tensor[[64, 64], pl.FP32] = self.scale(a, s)
            sb: pl.Tensor[[64, 64], pl.FP32] = self.scale(b, s)
        with pl.cluster():
            r: pl.Tensor[[64, 64], pl.FP32] = self.scale(sa, s)
        return r
