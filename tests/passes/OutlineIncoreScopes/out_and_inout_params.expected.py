# pypto.program: directions
import pypto.language as pl

@pl.program
class directions:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], acc: pl.InOut[pl.Tensor[[64, 64], pl.FP32]], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        main_incore_0_outs: pl.Tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]] = self.main_incore_0(a, out, acc)
        out_1: pl.Tensor[[64, 64], pl.FP32] = main_incore_0_outs[0]
        acc_1: pl.Tensor[[64, 64], pl.FP32] = main_incore_0_outs[1]
        return acc_1, out_1

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]], acc: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        e: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(a)
        out_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(out, e, [0, 0])
        s: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.add(acc, e)
        acc_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(acc, s, [0, 0])
        return out, acc
