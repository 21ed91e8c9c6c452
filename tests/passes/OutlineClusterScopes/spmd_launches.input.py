# pypto.program: spmd
import pypto.language as pl

@pl.program
class spmd:
    @pl.function(type=pl.FunctionType.InCore)
    def expk(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        e: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(x)
        return e

    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.cluster(name_hint="grouped"):
            with pl.spmd(8):
                t1: pl.Tensor[[64, 64], pl.FP32] = self.expk(a)
        with pl.spmd(n * 2, sync_start=True):
            o1: pl.Tensor[[64, 64], pl.FP32] = self.expk(t1)
        return o1
