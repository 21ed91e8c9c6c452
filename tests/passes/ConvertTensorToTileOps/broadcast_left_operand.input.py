# pypto.program: bleft
import pypto.language as pl

@pl.program
class bleft:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 128], pl.FP32], col: pl.Tensor[[64, 1], pl.FP32], row: pl.Tensor[[1, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        c: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.sub(col, x)
        r: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.div(row, c)
        m: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.maximum(r, col)
        o: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.assemble(out, m, [0, 0])
        return o
