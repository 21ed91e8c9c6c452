# pypto.program: tasks
import pypto.language as pl

@pl.program
class tasks:
    @pl.function(type=pl.FunctionType.InCore)
    def first(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(a)
        b_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(b, t, [0, 0])
        return b

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        b_1, first_1 = pl.submit(self.first, a, b)
        c, second = pl.submit(self.main_incore_1, b_1, deps=[first_1])
        d, _ = pl.submit(self.main_incore_2, c, deps=[first_1, second], allow_early_resolve=True)
        e: pl.Tensor[[64, 64], pl.FP32] = self.main_incore_3(d)
        return e

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_1(self, b_1: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        c: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.add(b_1, b_1)
        return c

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_2(self, c: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        d: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.mul(c, c)
        return d

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_3(self, d: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        e: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(d)
        return e
