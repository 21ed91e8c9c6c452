# pypto.program: inside
import pypto.language as pl

@pl.program
class inside:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for k, (outer,) in pl.range(0, m, 1, init_values=(n,)):
            for i, (acc,) in pl.unroll(0, 2, 1, init_values=(outer,)):
                nxt: pl.Scalar[pl.INDEX] = acc + k * i
                u: pl.Scalar[pl.INDEX] = pl.yield_(nxt)
            res: pl.Scalar[pl.INDEX] = pl.yield_(u)
        return res
