# pypto.program: DynamicRows
import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class DynamicRows:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[M, 256], pl.FP16], out: pl.Out[pl.Tensor[[M, 256], pl.FP16]]) -> pl.Tensor[[M, 256], pl.FP16]:
        y: pl.Tensor[[M, 256], pl.FP16] = pl.tensor.muls(x, 2.0)
        o: pl.Tensor[[M, 256], pl.FP16] = pl.tensor.assemble(out, y, [0, 0])
        return o
