# pypto.program: tasks
import pypto.language as pl

@pl.program
class tasks:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        ids: pl.Array[2, pl.TASK_ID] = pl.array.create(2, dtype=pl.TASK_ID)
        b, tid = pl.submit(self.main_incore_0, a)
        ids_1: pl.Array[2, pl.TASK_ID] = pl.array.update_element(ids, 0, tid)
        for i, (b_iter, tid_iter) in pl.range(0, n, 1, init_values=(b, tid)):
            b_next, tid_next = pl.submit(self.main_incore_1, b_iter, deps=[tid_iter])
            b_rv, tid_rv = pl.yield_(b_next, tid_next)
        c, _ = pl.submit(self.main_incore_2, b_rv, deps=[tid_rv, ids_1], attrs={"no_dep_args": [b_rv]})
        return c

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        b: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(a)
        return b

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_1(self, b_iter: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        b_next: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(b_iter)
        return b_next

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_2(self, b_rv: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        c: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(b_rv)
        return c
