# pypto.program: bcast
import pypto.language as pl

@pl.program
class bcast:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 128], pl.FP32], col: pl.Tensor[[64, 1], pl.FP32], row: pl.Tensor[[1, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        c: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.sub(x, col)
        r: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.mul(row, c)
        o: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.assemble(out, r, [0, 0])
        return o
