# pypto.program: outline
import pypto.language as pl

@pl.program
class outline:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
            t: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.muls(a, 2.0)
            out_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(out, t, [0, 0])
        return out_1
