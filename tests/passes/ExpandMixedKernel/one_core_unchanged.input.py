# pypto.program: one_core_unchanged
import pypto.language as pl

@pl.program
class one_core_unchanged:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        __tmp_v0: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], target_memory=pl.Mem.Vec)
        __tmp_v1: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(__tmp_v0)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(__tmp_v1, [0, 0], out)
        return r
