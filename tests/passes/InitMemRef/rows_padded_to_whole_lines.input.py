# pypto.program: padded
import pypto.language as pl

@pl.program
class padded:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.INT8], out: pl.Out[pl.Tensor[[16, 16], pl.INT8]], col: pl.Out[pl.Tensor[[16, 1], pl.FP16]]) -> tuple[pl.Tensor[[16, 16], pl.INT8], pl.Tensor[[16, 1], pl.FP16]]:
        ta: pl.Tile[[16, 16], pl.INT8, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        tail: pl.Tile[[8, 16], pl.INT8, pl.Mem.Vec] = pl.tile.slice(ta, [8, 16], [8, 0])
        c: pl.Tile[[16, 1], pl.FP16, pl.Mem.Vec] = pl.tile.full([16, 1], 1.0, dtype=pl.FP16)
        r: pl.Tensor[[16, 16], pl.INT8] = pl.tile.store(tail, [8, 0], out)
        r2: pl.Tensor[[16, 1], pl.FP16] = pl.tile.store(c, [0, 0], col)
        return r, r2
