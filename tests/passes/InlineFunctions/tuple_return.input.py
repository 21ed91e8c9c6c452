# pypto.program: tuple_return
import pypto.language as pl

@pl.program
class tuple_return:
    @pl.function(type=pl.FunctionType.Inline)
    def divmod(self, a: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.INDEX]) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX]]:
        q: pl.Scalar[pl.INDEX] = a // b
        r: pl.Scalar[pl.INDEX] = a % b
        return q, r

    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        qr: pl.Tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX]] = self.divmod(n, 16)
        q: pl.Scalar[pl.INDEX] = qr[0]
        r: pl.Scalar[pl.INDEX] = qr[1]
        s: pl.Scalar[pl.INDEX] = q + r
        return s
