# pypto.program: GroupForwardsOut
import pypto.language as pl

@pl.program
class GroupForwardsOut:
    @pl.function(type=pl.FunctionType.Group)
    def cluster(self, a: pl.Tensor[[64, 64], pl.FP32], ret0_out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        e: pl.Tensor[[64, 64], pl.FP32] = self.kernel(a, ret0_out)
        return e

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32], ret0_out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a_tile: pl.Tile[[64, 64], pl.FP32] = pl.tile.load(a, [0, 0], [64, 64])
        e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a_tile)
        ret0: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(e, [0, 0], ret0_out)
        return ret0

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        ret0_out: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.create([64, 64], dtype=pl.FP32)
        r: pl.Tensor[[64, 64], pl.FP32] = self.cluster(a, ret0_out)
        return r
