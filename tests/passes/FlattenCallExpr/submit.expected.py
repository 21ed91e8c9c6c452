# pypto.program: flatten
import pypto.language as pl

@pl.program
class flatten:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16], pl.FP32], o: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        __tmp_v0: pl.Tensor[[16], pl.FP32] = pl.tensor.exp(a)
        o_1: pl.Tensor[[16], pl.FP32] = pl.tensor.assemble(o, __tmp_v0, [0])
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32], pl.FP32], o: pl.Out[pl.Tensor[[16], pl.FP32]], ids: pl.Array[2, pl.TASK_ID]) -> pl.Tensor[[16], pl.FP32]:
        __tmp_v0: pl.Tensor[[16], pl.FP32] = pl.tensor.slice(a, [16], [16])
        __tmp_v1: pl.Scalar[pl.TASK_ID] = pl.array.get_element(ids, 0)
        r, t = pl.submit(self.k, __tmp_v0, o, deps=[__tmp_v1])
        return r
