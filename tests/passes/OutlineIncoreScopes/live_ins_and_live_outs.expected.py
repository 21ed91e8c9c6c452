# pypto.program: live
import pypto.language as pl

@pl.program
class live:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], s: pl.Scalar[pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        main_incore_0_outs: pl.Tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]] = self.main_incore_0(b, s, a)
        t: pl.Tensor[[64, 64], pl.FP32] = main_incore_0_outs[0]
        v: pl.Tensor[[64, 64], pl.FP32] = main_incore_0_outs[1]
        w: pl.Tensor[[64, 64], pl.FP32] = self.main_incore_1(v, t)
        return w

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, b: pl.Tensor[[64, 64], pl.FP32], s: pl.Scalar[pl.FP32], a: pl.Tensor[[64, 64], pl.FP32]) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        t: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.muls(b, s)
        u: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.add(a, t)
        v: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(u)
        return t, v

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_1(self, v: pl.Tensor[[64, 64], pl.FP32], t: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        w: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.sub(v, t)
        return w
