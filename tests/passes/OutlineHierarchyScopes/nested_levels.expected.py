# pypto.program: nested_levels
import pypto.language as pl

@pl.program
class nested_levels:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, n: pl.Scalar[pl.INDEX], a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        m: pl.Scalar[pl.INDEX] = n + 1
        e: pl.Tensor[[64, 64], pl.FP32] = self.host_hierarchy_0(a, m)
        return e

    @pl.function(level=pl.Level.CHIP, role=pl.Role.SubWorker)
    def host_hierarchy_0(self, a: pl.Tensor[[64, 64], pl.FP32], m: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            e: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(a)
        k: pl.Scalar[pl.INDEX] = m * 2
        return e

    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        e: pl.Tensor[[64, 64], pl.FP32] = self.host(n, a)
        return e
