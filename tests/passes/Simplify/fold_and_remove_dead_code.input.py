# pypto.program: fold
import pypto.language as pl

@pl.program
class fold:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        a: pl.Scalar[pl.INDEX] = 2 * 3
        b: pl.Scalar[pl.INDEX] = a + 0
        unused: pl.Scalar[pl.INDEX] = n * 7
        c: pl.Scalar[pl.INDEX] = n + b
        return c
