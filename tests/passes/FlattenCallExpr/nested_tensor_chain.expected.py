# pypto.program: nested
import pypto.language as pl

@pl.program
class nested:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        __tmp_v0: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.add(a, b)
        __tmp_v1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(__tmp_v0)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(out, __tmp_v1, [0, 0])
        return r
