# pypto.program: rules
import pypto.language as pl

@pl.program
class rules:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX], x: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.FP32]:
        d: pl.Scalar[pl.FP32] = x * 3.0
        h: pl.Scalar[pl.FP32] = x + 0.0
        r: pl.Scalar[pl.FP32] = d + h
        return r
