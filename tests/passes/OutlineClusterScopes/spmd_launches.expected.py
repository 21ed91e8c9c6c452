# pypto.program: spmd
import pypto.language as pl

@pl.program
class spmd:
    @pl.function(type=pl.FunctionType.InCore)
    def expk(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        e: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(x)
        return e

    @pl.function(type=pl.FunctionType.Group)
    def grouped(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        t1: pl.Tensor[[64, 64], pl.FP32] = self.expk(a)
        return t1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        t1: pl.Tensor[[64, 64], pl.FP32] = self.grouped(a, attrs={"core_num": pl.const(8, pl.INDEX), "sync_start": False})
        o1: pl.Tensor[[64, 64], pl.FP32] = self.main_spmd_0(t1, attrs={"core_num": n * 2, "sync_start": True})
        return o1

    @pl.function(type=pl.FunctionType.Spmd)
    def main_spmd_0(self, t1: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        o1: pl.Tensor[[64, 64], pl.FP32] = self.expk(t1)
        return o1
