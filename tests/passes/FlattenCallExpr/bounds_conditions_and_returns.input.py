# pypto.program: bounds
import pypto.language as pl

@pl.program
class bounds:
    @pl.function
    def f(self, a: pl.Tensor[[64, 128], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i, (acc,) in pl.range(0, pl.tensor.dim(a, 0), 1, init_values=(n,)):
            if i < pl.tensor.dim(a, 1):
                v: pl.Scalar[pl.INDEX] = pl.yield_(acc + 1)
            else:
                v: pl.Scalar[pl.INDEX] = pl.yield_(acc)
            r: pl.Scalar[pl.INDEX] = pl.yield_(v)
        return r + pl.tensor.dim(a, 1)
