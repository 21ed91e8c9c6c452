# pypto.program: live
import pypto.language as pl

@pl.program
class live:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], s: pl.Scalar[pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.muls(b, s)
            u: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.add(a, t)
            v: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(u)
        with pl.at(level=pl.Level.CORE_GROUP):
            w: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.sub(v, t)
        return w
