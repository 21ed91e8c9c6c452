# pypto.program: large
import pypto.language as pl

@pl.program
class large:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[2048, 2048], pl.FP32], b: pl.Tensor[[2048, 2048], pl.FP32], out: pl.Out[pl.Tensor[[2048, 2048], pl.FP32]]) -> pl.Tensor[[2048, 2048], pl.FP32]:
        s: pl.Tensor[[2048, 2048], pl.FP32] = pl.tensor.add(a, b)
        e: pl.Tensor[[2048, 2048], pl.FP32] = pl.tensor.exp(s)
        o: pl.Tensor[[2048, 2048], pl.FP32] = pl.tensor.assemble(out, e, [0, 0])
        return o
