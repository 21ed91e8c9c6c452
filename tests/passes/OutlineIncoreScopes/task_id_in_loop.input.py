# pypto.program: tasks
import pypto.language as pl

@pl.program
class tasks:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        ids: pl.Array[2, pl.TASK_ID] = pl.array.create(2, dtype=pl.TASK_ID)
        with pl.at(level=pl.Level.CORE_GROUP) as tid:
            b: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(a)
        ids_1: pl.Array[2, pl.TASK_ID] = pl.array.update_element(ids, 0, tid)
        for i, (b_iter, tid_iter) in pl.range(0, n, 1, init_values=(b, tid)):
            with pl.at(level=pl.Level.CORE_GROUP, deps=[tid_iter]) as tid_next:
                b_next: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(b_iter)
            b_rv, tid_rv = pl.yield_(b_next, tid_next)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[tid_rv, ids_1], no_dep_args=[b_rv]):
            c: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(b_rv)
        return c
