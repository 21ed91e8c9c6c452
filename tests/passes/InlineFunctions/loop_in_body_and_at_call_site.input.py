# pypto.program: loops
import pypto.language as pl

@pl.program
class loops:
    @pl.function(type=pl.FunctionType.Inline)
    def power(self, x: pl.Scalar[pl.INDEX], k: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i, (acc,) in pl.range(0, k, 1, init_values=(1,)):
            nxt: pl.Scalar[pl.INDEX] = acc * x
            p: pl.Scalar[pl.INDEX] = pl.yield_(nxt)
        return p

    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for j, (total,) in pl.range(0, 4, 1, init_values=(0,)):
            c: pl.Scalar[pl.INDEX] = self.power(n, j)
            s: pl.Scalar[pl.INDEX] = total + c
            r: pl.Scalar[pl.INDEX] = pl.yield_(s)
        return r
