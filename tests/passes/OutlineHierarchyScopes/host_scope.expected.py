# pypto.program: host_scope
import pypto.language as pl

@pl.program
class host_scope:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        c: pl.Tensor[[64, 64], pl.FP32] = self.main_hierarchy_0(a, b)
        with pl.at(level=pl.Level.CORE_GROUP):
            d: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.mul(c, b)
        return d

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main_hierarchy_0(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.add(a, b)
        return c
