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
        with pl.spmd(4, deps=[t0]) as grid:
            b: pl.Tensor[[64, 64], pl.FP32] = self.k(a)
        with pl.cluster(name_hint="pair"):
            with pl.spmd(8, sync_start=True, deps=[grid]) as paired:
                c: pl.Tensor[[64, 64], pl.FP32] = self.k(b)
        with pl.spmd(2):
            d: pl.Tensor[[64, 64], pl.FP32] = self.k(c)
        e_task: pl.Tuple[pl.Tensor[[64, 64], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.submit(self.k, d, deps=[paired])
        e: pl.Tensor[[64, 64], pl.FP32] = e_task[0]
        return e
