# pypto.program: cluster
import pypto.language as pl

@pl.program
class cluster:
    @pl.function(type=pl.FunctionType.InCore)
    def expk(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        e: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(x)
        return e

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        o1: pl.Tensor[[64, 64], pl.FP32] = self.main_cluster_0(a)
        return o1

    @pl.function(type=pl.FunctionType.Group)
    def main_cluster_0(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        t1: pl.Tensor[[64, 64], pl.FP32] = self.expk(a)
        o1: pl.Tensor[[64, 64], pl.FP32] = self.expk(t1)
        return o1
