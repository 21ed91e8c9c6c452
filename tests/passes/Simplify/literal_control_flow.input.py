# pypto.program: literal_flow
import pypto.language as pl

@pl.program
class literal_flow:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX], x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        k: pl.Scalar[pl.INDEX] = 0
        for i, (acc,) in pl.range(0, k, 1, init_values=(n,)):
            a2: pl.Scalar[pl.INDEX] = acc + i
            r: pl.Scalar[pl.INDEX] = pl.yield_(a2)
        y: pl.Scalar[pl.INDEX] = r * 1
        z: pl.Scalar[pl.INDEX] = y - y
        if z == 0:
            w: pl.Scalar[pl.INDEX] = pl.yield_(x + y)
        else:
            w: pl.Scalar[pl.INDEX] = pl.yield_(x)
        return w
