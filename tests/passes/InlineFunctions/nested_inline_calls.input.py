# pypto.program: nested_inline
import pypto.language as pl

@pl.program
class nested_inline:
    @pl.function(type=pl.FunctionType.Inline)
    def axpy(self, a: pl.Scalar[pl.INDEX], x: pl.Scalar[pl.INDEX], y: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        ax: pl.Scalar[pl.INDEX] = a * x
        r: pl.Scalar[pl.INDEX] = ax + y
        return r

    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        s: pl.Scalar[pl.INDEX] = self.twice(n)
        return s

    @pl.function(type=pl.FunctionType.Inline)
    def twice(self, v: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        t: pl.Scalar[pl.INDEX] = self.axpy(2, v, 1)
        u: pl.Scalar[pl.INDEX] = self.axpy(2, t, 1)
        return u
