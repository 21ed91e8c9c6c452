# pypto.program: dynamic
import pypto.language as pl

@pl.program
class dynamic:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, n: pl.Scalar[pl.INDEX], a: pl.Tensor[[n, 64], pl.FP32], out: pl.Out[pl.Tensor[[n, 64], pl.FP32]]) -> pl.Tensor[[n, 64], pl.FP32]:
        o: pl.Tensor[[n, 64], pl.FP32] = self.main_incore_0(n, a, out)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, n: pl.Scalar[pl.INDEX], a: pl.Tensor[[n, 64], pl.FP32], out: pl.Out[pl.Tensor[[n, 64], pl.FP32]]) -> pl.Tensor[[n, 64], pl.FP32]:
        e: pl.Tensor[[n, 64], pl.FP32] = pl.tensor.exp(a)
        o: pl.Tensor[[n, 64], pl.FP32] = pl.tensor.assemble(out, e, [0, 0])
        return out
