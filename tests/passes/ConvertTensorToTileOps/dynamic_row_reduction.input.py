# pypto.program: DynamicRowSum
import pypto.language as pl

M = pl.dynamic("M")
N = pl.dynamic("N")

@pl.program
class DynamicRowSum:
    @pl.function(type=pl.FunctionType.InCore)
    def sums(self, x: pl.Tensor[[M, N], pl.FP32]) -> pl.Tensor[[M, 1], pl.FP32]:
        s: pl.Tensor[[M, 1], pl.FP32] = pl.tensor.row_sum(x)
        return s
