# pypto.program: given
import pypto.language as pl

@pl.program
class given:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP16], out: pl.Out[pl.Tensor[[32, 16], pl.FP16]]) -> pl.Tensor[[32, 16], pl.FP16]:
        a: pl.Tile[[16, 32], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        tmp: pl.Tile[[32, 16], pl.FP16, pl.Mem.Vec] = pl.tile.create([32, 16], dtype=pl.FP16, target_memory=pl.Mem.Vec)
        t: pl.Tile[[32, 16], pl.FP16, pl.Mem.Vec] = pl.tile.transpose(a, 0, 1, tmp)
        r: pl.Tensor[[32, 16], pl.FP16] = pl.tile.store(t, [0, 0], out)
        return r
