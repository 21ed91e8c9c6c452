# pypto.program: directions
import pypto.language as pl

@pl.program
class directions:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], acc: pl.InOut[pl.Tensor[[64, 64], pl.FP32]], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            e: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(a)
            out_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(out, e, [0, 0])
            s: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.add(acc, e)
            acc_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(acc, s, [0, 0])
        return acc_1, out_1
