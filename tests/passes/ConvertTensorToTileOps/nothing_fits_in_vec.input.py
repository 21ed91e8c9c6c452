# pypto.program: huge
import pypto.language as pl

@pl.program
class huge:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[65536, 65536], pl.FP32], out: pl.Out[pl.Tensor[[65536, 65536], pl.FP32]]) -> pl.Tensor[[65536, 65536], pl.FP32]:
        e: pl.Tensor[[65536, 65536], pl.FP32] = pl.tensor.exp(x)
        o: pl.Tensor[[65536, 65536], pl.FP32] = pl.tensor.assemble(out, e, [0, 0])
        return o
