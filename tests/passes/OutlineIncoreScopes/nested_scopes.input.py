# pypto.program: nested
import pypto.language as pl

@pl.program
class nested:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            with pl.at(level=pl.Level.CORE_GROUP):
                e: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(a)
        return e
