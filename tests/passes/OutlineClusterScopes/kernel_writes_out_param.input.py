# pypto.program: writes_out
import pypto.language as pl

@pl.program
class writes_out:
    @pl.function(type=pl.FunctionType.InCore)
    def expk(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        e: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(x)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(out, e, [0, 0])
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.cluster():
            o1: pl.Tensor[[64, 64], pl.FP32] = self.expk(a, out)
        return o1
