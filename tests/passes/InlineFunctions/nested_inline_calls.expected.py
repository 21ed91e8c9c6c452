# pypto.program: nested_inline
import pypto.language as pl

@pl.program
class nested_inline:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        ax_inline1: pl.Scalar[pl.INDEX] = 2 * n
        r_inline1: pl.Scalar[pl.INDEX] = ax_inline1 + 1
        t_inline0: pl.Scalar[pl.INDEX] = r_inline1
        ax_inline2: pl.Scalar[pl.INDEX] = 2 * t_inline0
        r_inline2: pl.Scalar[pl.INDEX] = ax_inline2 + 1
        u_inline0: pl.Scalar[pl.INDEX] = r_inline2
        s: pl.Scalar[pl.INDEX] = u_inline0
        return s
