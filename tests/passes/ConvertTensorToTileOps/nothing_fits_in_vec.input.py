# pypto.program: huge_rows
import pypto.language as pl

@pl.program
class huge_rows:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 1048576], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        s: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.row_sum(x)
        o: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.assemble(out, s, [0, 0])
        return o
