# pypto.program: unroll
import pypto.language as pl

@pl.program
class unroll:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i, (acc,) in pl.unroll(0, 3, 1, init_values=(n,)):
            nxt: pl.Scalar[pl.INDEX] = acc * i
            total: pl.Scalar[pl.INDEX] = pl.yield_(nxt)
        return total
