# pypto.program: literal_flow
import pypto.language as pl

@pl.program
class literal_flow:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX], x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        w: pl.Scalar[pl.INDEX] = x + n
        return w
