# pypto.program: inside
import pypto.language as pl

@pl.program
class inside:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for k, (outer,) in pl.range(0, m, 1, init_values=(n,)):
            nxt_0: pl.Scalar[pl.INDEX] = outer + k * 0
            nxt_1: pl.Scalar[pl.INDEX] = nxt_0 + k * 1
            u: pl.Scalar[pl.INDEX] = nxt_1
            res: pl.Scalar[pl.INDEX] = pl.yield_(u)
        return res
