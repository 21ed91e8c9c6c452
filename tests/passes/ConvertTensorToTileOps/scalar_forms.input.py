# pypto.program: scalars
import pypto.language as pl

@pl.program
class scalars:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 64], pl.FP32], alpha: pl.Scalar[pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:
        a: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.muls(x, alpha)
        b: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.adds(a, 1.0)
        c: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.maximum(b, 0.0)
        return c
