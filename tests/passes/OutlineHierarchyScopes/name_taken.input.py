# pypto.program: name_taken
import pypto.language as pl

@pl.program
class name_taken:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator, name_hint="helper"):
            m: pl.Scalar[pl.INDEX] = n + 1
        r: pl.Scalar[pl.INDEX] = self.helper(m)
        return r

    @pl.function
    def helper(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        y: pl.Scalar[pl.INDEX] = x * 2
        return y
