# pypto.program: compare
import pypto.language as pl

@pl.program
class compare:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Tensor[[32, 64], pl.FP32]) -> tuple[pl.Tensor[[32, 64], pl.FP32], pl.Tensor[[32, 64], pl.FP32]]:
        lt: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.cmp(x, y, cmp_type=2)
        pos: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.cmp(x, 0.0, cmp_type=4)
        return lt, pos
