# pypto.program: deps
import pypto.language as pl

@pl.program
class deps:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Out[pl.Tensor[[64, 64], pl.FP32]], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        b_1, update_tid = pl.submit(self.update, a, b, attrs={"arg_directions": ["Input", "OutputExisting"]})
        c_1, update_tid_1 = pl.submit(self.update, b_1, c, attrs={"arg_directions": ["Input", "OutputExisting"], "compiler_deps": [update_tid]})
        b_2: pl.Tensor[[64, 64], pl.FP32] = self.update(a, b_1, attrs={"arg_directions": ["Input", "InOut"], "compiler_deps": [update_tid, update_tid_1]})
        return b_2

    @pl.function(type=pl.FunctionType.InCore)
    def update(self, src: pl.Tensor[[64, 64], pl.FP32], dst: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(src)
        dst_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(dst, t, [0, 0])
        return dst_1
