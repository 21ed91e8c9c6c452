# pypto.program: negative
import pypto.language as pl

@pl.program
class negative:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        nxt_0: pl.Scalar[pl.INDEX] = n - 4
        nxt_1: pl.Scalar[pl.INDEX] = nxt_0 - 2
        total: pl.Scalar[pl.INDEX] = nxt_1
        return total
