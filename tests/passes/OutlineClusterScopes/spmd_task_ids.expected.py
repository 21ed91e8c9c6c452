# pypto.program: grids
import pypto.language as pl

@pl.program
class grids:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        b: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(a)
        return b

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], t0: pl.Scalar[pl.TASK_ID]) -> pl.Tensor[[64, 64], pl.FP32]:
        b, grid = pl.spmd_submit(self.main_spmd_0, a, core_num=4, sync_start=False, deps=[t0])
        c, paired = pl.spmd_submit(self.pair, b, core_num=8, sync_start=True, deps=[grid])
        d: pl.Tensor[[64, 64], pl.FP32] = self.main_spmd_1(c, attrs={"core_num": pl.const(2, pl.INDEX), "sync_start": False})
        e, _ = pl.submit(self.k, d, deps=[paired])
        return e

    @pl.function(type=pl.FunctionType.Spmd)
    def main_spmd_0(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        b: pl.Tensor[[64, 64], pl.FP32] = self.k(a)
        return b

    @pl.function(type=pl.FunctionType.Spmd)
    def main_spmd_1(self, c: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        d: pl.Tensor[[64, 64], pl.FP32] = self.k(c)
        return d

    @pl.function(type=pl.FunctionType.Group)
    def pair(self, b: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        c: pl.Tensor[[64, 64], pl.FP32] = self.k(b)
        return c
