# pypto.program: tasks
import pypto.language as pl

@pl.program
class tasks:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="first") as first:
            t: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(a)
            b_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(b, t, [0, 0])
        with pl.at(level=pl.Level.CORE_GROUP, deps=[first]) as second:
            c: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.add(b_1, b_1)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[first, second], allow_early_resolve=True):
            d: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.mul(c, c)
        with pl.at(level=pl.Level.CORE_GROUP):
            e: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(d)
        return e
