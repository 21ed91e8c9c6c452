# pypto.program: pipelined
import pypto.language as pl

@pl.program
class pipelined:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i, (acc,) in pl.pipeline(0, n, 1, init_values=(0,), stage=1):
            nxt: pl.Scalar[pl.INDEX] = acc + i
            total: pl.Scalar[pl.INDEX] = pl.yield_(nxt)
        return total
