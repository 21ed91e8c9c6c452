# pypto.program: fold
import pypto.language as pl

@pl.program
class fold:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        c: pl.Scalar[pl.INDEX] = n + 6
        return c
