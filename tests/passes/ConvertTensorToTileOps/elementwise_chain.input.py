# pypto.program: chain
import pypto.language as pl

@pl.program
class chain:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 128], pl.FP32], b: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        s: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.add(a, b)
        e: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.exp(s)
        m: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.mul(e, a)
        o: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.assemble(out, m, [0, 0])
        return o
