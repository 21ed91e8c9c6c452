# pypto.program: rules
import pypto.language as pl

@pl.program
class rules:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX], x: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.FP32]:
        a: pl.Scalar[pl.INDEX] = -7 // 2
        b: pl.Scalar[pl.INDEX] = -7 % 2
        c: pl.Scalar[pl.FP32] = 1.5 * 2.0
        d: pl.Scalar[pl.FP32] = x * c
        e: pl.Scalar[pl.INDEX] = n * 0
        g: pl.Scalar[pl.INDEX] = a + b + e
        h: pl.Scalar[pl.FP32] = x + 0.0
        k: pl.Scalar[pl.BOOL] = n == n
        if k:
            r: pl.Scalar[pl.FP32] = pl.yield_(d + h)
        else:
            r: pl.Scalar[pl.FP32] = pl.yield_(x)
        q: pl.Scalar[pl.INDEX] = n // 0
        return r
