# pypto.program: flatten
import pypto.language as pl

@pl.program
class flatten:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16], pl.FP32], o: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        o_1: pl.Tensor[[16], pl.FP32] = pl.tensor.assemble(o, pl.tensor.exp(a), [0])
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32], pl.FP32], o: pl.Out[pl.Tensor[[16], pl.FP32]], ids: pl.Array[2, pl.TASK_ID]) -> pl.Tensor[[16], pl.FP32]:
        r, t = pl.submit(self.k, pl.tensor.slice(a, [16], [16]), o, deps=[pl.array.get_element(ids, 0)])
        return r
