# pypto.program: bounds
import pypto.language as pl

@pl.program
class bounds:
    @pl.function
    def f(self, a: pl.Tensor[[64, 128], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        __tmp_v0: pl.Scalar[pl.INDEX] = pl.tensor.dim(a, 0)
        for i, (acc,) in pl.range(0, __tmp_v0, 1, init_values=(n,)):
            __tmp_v1: pl.Scalar[pl.INDEX] = pl.tensor.dim(a, 1)
            if i < __tmp_v1:
                v: pl.Scalar[pl.INDEX] = pl.yield_(acc + 1)
            else:
                v: pl.Scalar[pl.INDEX] = pl.yield_(acc)
            r: pl.Scalar[pl.INDEX] = pl.yield_(v)
        __tmp_v2: pl.Scalar[pl.INDEX] = pl.tensor.dim(a, 1)
        return r + __tmp_v2
