# pypto.program: deps
import pypto.language as pl

@pl.program
class deps:
    @pl.function(type=pl.FunctionType.InCore)
    def copy(self, src: pl.Tensor[[64, 64], pl.FP32], dst: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(src)
        dst_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(dst, t, [0, 0])
        return dst

    @pl.function(type=pl.FunctionType.InCore)
    def half(self, src: pl.Tensor[[32, 64], pl.FP32], dst: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.exp(src)
        dst_1: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.assemble(dst, t, [0, 0])
        return dst

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Out[pl.Tensor[[64, 64], pl.FP32]], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        copy_none: pl.Scalar[pl.TASK_ID] = pl.system.task_dummy()
        for i, (b_iter, c_iter, copy_prev) in pl.range(0, 4, 1, init_values=(b, c, copy_none)):
            c_next, copy_tid = pl.submit(self.copy, a, c_iter, attrs={"arg_directions": ["Input", "InOut"], "compiler_deps": [copy_prev]})
            b_next, copy_tid_1 = pl.submit(self.copy, c_next, b_iter, attrs={"arg_directions": ["Input", "InOut"], "compiler_deps": [copy_tid]})
            b_rv, c_rv, copy_last = pl.yield_(b_next, c_next, copy_tid_1)
        return c_rv
