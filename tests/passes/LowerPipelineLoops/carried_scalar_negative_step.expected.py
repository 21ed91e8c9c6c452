# pypto.program: pipelined
import pypto.language as pl

@pl.program
class pipelined:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i, (acc,) in pl.range(7, 1, -6, init_values=(n,), pipeline_stages=3):
            acc_s1: pl.Scalar[pl.INDEX] = acc * 2 + i
            acc_s2: pl.Scalar[pl.INDEX] = acc_s1 * 2 + (i - 2)
            total_main: pl.Scalar[pl.INDEX] = pl.yield_(acc_s2 * 2 + (i - 4))
        total: pl.Scalar[pl.INDEX] = total_main * 2 + 1
        return total
