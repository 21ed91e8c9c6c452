# pypto.program: pipelined
import pypto.language as pl

@pl.program
class pipelined:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i, (acc,) in pl.pipeline(7, 0, -2, init_values=(n,), stage=3):
            total: pl.Scalar[pl.INDEX] = pl.yield_(acc * 2 + i)
        return total
