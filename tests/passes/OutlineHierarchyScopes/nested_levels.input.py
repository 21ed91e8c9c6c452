# pypto.program: nested_levels
import pypto.language as pl

@pl.program
class nested_levels:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator, name_hint="host"):
            m: pl.Scalar[pl.INDEX] = n + 1
            with pl.at(level=pl.Level.CHIP, role=pl.Role.SubWorker):
                with pl.at(level=pl.Level.CORE_GROUP):
                    e: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(a)
                k: pl.Scalar[pl.INDEX] = m * 2
        return e
