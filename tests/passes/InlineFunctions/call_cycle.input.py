# pypto.program: cycle
import pypto.language as pl

@pl.program
class cycle:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        r: pl.Scalar[pl.INDEX] = self.ping(n)
        return r

    @pl.function(type=pl.FunctionType.Inline)
    def ping(self, a: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        b: pl.Scalar[pl.INDEX] = self.pong(a)
        return b

    @pl.function(type=pl.FunctionType.Inline)
    def pong(self, a: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        b: pl.Scalar[pl.INDEX] = self.ping(a)
        return b
