# pypto.program: already_ssa
import pypto.language as pl

@pl.program
class already_ssa:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX], c: pl.Scalar[pl.BOOL]) -> pl.Scalar[pl.INDEX]:
        acc: pl.Scalar[pl.INDEX] = 0
        for i, (acc_1,) in pl.range(0, n, 1, init_values=(acc,)):
            acc_2: pl.Scalar[pl.INDEX] = acc_1 + i
            acc_3: pl.Scalar[pl.INDEX] = pl.yield_(acc_2)
        for (k,) in pl.while_(init_values=(acc_3,)):
            pl.cond(k < 100)
            k_1: pl.Scalar[pl.INDEX] = k * 2
            k_2: pl.Scalar[pl.INDEX] = pl.yield_(k_1)
        if c:
            r_1: pl.Scalar[pl.INDEX] = k_2 + 1
            r: pl.Scalar[pl.INDEX] = pl.yield_(r_1)
        else:
            r: pl.Scalar[pl.INDEX] = pl.yield_(k_2)
        return r
