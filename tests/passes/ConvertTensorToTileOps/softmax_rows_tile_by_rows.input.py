# pypto.program: Softmax
import pypto.language as pl

@pl.program
class Softmax:
    @pl.function(type=pl.FunctionType.InCore)
    def softmax(self, x: pl.Tensor[[256, 1024], pl.FP32]) -> pl.Tensor[[256, 1024], pl.FP32]:
        m: pl.Tensor[[256, 1], pl.FP32] = pl.tensor.row_max(x)
        d: pl.Tensor[[256, 1024], pl.FP32] = pl.tensor.sub(x, m)
        e: pl.Tensor[[256, 1024], pl.FP32] = pl.tensor.exp(d)
        s: pl.Tensor[[256, 1], pl.FP32] = pl.tensor.row_sum(e)
        p: pl.Tensor[[256, 1024], pl.FP32] = pl.tensor.div(e, s)
        return p
