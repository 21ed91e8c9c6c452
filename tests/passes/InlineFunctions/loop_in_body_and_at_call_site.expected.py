# pypto.program: loops
import pypto.language as pl

@pl.program
class loops:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for j, (total,) in pl.range(0, 4, 1, init_values=(0,)):
            for i_inline0, (acc_inline0,) in pl.range(0, j, 1, init_values=(1,)):
                nxt_inline0: pl.Scalar[pl.INDEX] = acc_inline0 * n
                p_inline0: pl.Scalar[pl.INDEX] = pl.yield_(nxt_inline0)
            c: pl.Scalar[pl.INDEX] = p_inline0
            s: pl.Scalar[pl.INDEX] = total + c
            r: pl.Scalar[pl.INDEX] = pl.yield_(s)
        return r
