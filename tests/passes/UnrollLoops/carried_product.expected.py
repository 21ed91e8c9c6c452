# pypto.program: unroll
import pypto.language as pl

@pl.program
class unroll:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        nxt_0: pl.Scalar[pl.INDEX] = n * 0
        nxt_1: pl.Scalar[pl.INDEX] = nxt_0 * 1
        nxt_2: pl.Scalar[pl.INDEX] = nxt_1 * 2
        total: pl.Scalar[pl.INDEX] = nxt_2
        return total
