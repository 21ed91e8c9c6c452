# pypto.program: deps
import pypto.language as pl

@pl.program
class deps:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Out[pl.Tensor[[64, 64], pl.FP32]], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        split_task: pl.Tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.submit(self.split, a, b, c, attrs={"arg_directions": ["Input", "OutputExisting", "OutputExisting"]})
        outs: pl.Tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]] = [split_task[0], split_task[1]]
        split_tid: pl.Scalar[pl.TASK_ID] = split_task[2]
        lo: pl.Tensor[[64, 64], pl.FP32] = outs[0]
        again: pl.Tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]] = self.split(lo, a, c, attrs={"arg_directions": ["Input", "OutputExisting", "InOut"], "compiler_deps": [split_tid]})
        return lo

    @pl.function(type=pl.FunctionType.InCore)
    def split(self, src: pl.Tensor[[64, 64], pl.FP32], lo: pl.Out[pl.Tensor[[64, 64], pl.FP32]], hi: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        t: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(src)
        lo_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(lo, t, [0, 0])
        hi_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(hi, t, [0, 0])
        return lo_1, hi_1
