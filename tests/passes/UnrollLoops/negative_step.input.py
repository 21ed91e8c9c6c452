# pypto.program: negative
import pypto.language as pl

@pl.program
class negative:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i, (acc,) in pl.unroll(4, 0, -2, init_values=(n,)):
            nxt: pl.Scalar[pl.INDEX] = acc - i
            total: pl.Scalar[pl.INDEX] = pl.yield_(nxt)
        return total
