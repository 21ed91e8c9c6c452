# pypto.program: DynamicMatmul
import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class DynamicMatmul:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[M, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16]) -> pl.Tensor[[M, 64], pl.FP32]:
        c: pl.Tensor[[M, 64], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)
        return c
