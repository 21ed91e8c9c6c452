# pypto.program: large_a5
import pypto.language as pl

@pl.program
class large_a5:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[2048, 2048], pl.FP32], b: pl.Tensor[[2048, 2048], pl.FP32], out: pl.Out[pl.Tensor[[2048, 2048], pl.FP32]]) -> pl.Tensor[[2048, 2048], pl.FP32]:
        s: pl.Tensor[[2048, 2048], pl.FP32] = pl.tensor.add(a, b)
        o: pl.Tensor[[2048, 2048], pl.FP32] = pl.tensor.assemble(out, s, [0, 0])
        return o
