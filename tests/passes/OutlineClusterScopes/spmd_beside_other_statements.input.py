# pypto.program: mixed_cluster
import pypto.language as pl

@pl.program
class mixed_cluster:
    @pl.function(type=pl.FunctionType.InCore)
    def expk(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        e: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(x)
        return e

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.cluster():
            t1: pl.Tensor[[64, 64], pl.FP32] = self.expk(a)
            with pl.spmd(4):
                o1: pl.Tensor[[64, 64], pl.FP32] = self.expk(t1)
        return o1
