# pypto.program: tuple_return
import pypto.language as pl

@pl.program
class tuple_return:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        q_inline0: pl.Scalar[pl.INDEX] = n // 16
        r_inline0: pl.Scalar[pl.INDEX] = n % 16
        q: pl.Scalar[pl.INDEX] = q_inline0
        r: pl.Scalar[pl.INDEX] = r_inline0
        s: pl.Scalar[pl.INDEX] = q + r
        return s
