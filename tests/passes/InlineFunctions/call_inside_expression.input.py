# pypto.program: nested_call
import pypto.language as pl

@pl.program
class nested_call:
    @pl.function(type=pl.FunctionType.Inline)
    def inc(self, a: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        b: pl.Scalar[pl.INDEX] = a + 1
        return b

    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        r: pl.Scalar[pl.INDEX] = self.inc(n) * 2
        return r
