# pypto.program: narrow
import pypto.language as pl

@pl.program
class narrow:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 1024], pl.FP32], out: pl.Out[pl.Tensor[[64, 1024], pl.FP32]]) -> pl.Tensor[[64, 1024], pl.FP32]:
        t: pl.Tile[[64, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 16], target_memory=pl.Mem.Vec)
        e: pl.Tile[[64, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        o: pl.Tensor[[64, 1024], pl.FP32] = pl.tile.store(e, [0, 0], out)
        return o
