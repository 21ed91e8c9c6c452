# pypto.program: pipelined
import pypto.language as pl

@pl.program
class pipelined:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX], s: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i, (acc,) in pl.pipeline(0, n, s, init_values=(n,), stage=2):
            nxt: pl.Scalar[pl.INDEX] = acc + i
            total: pl.Scalar[pl.INDEX] = pl.yield_(nxt)
        return total
