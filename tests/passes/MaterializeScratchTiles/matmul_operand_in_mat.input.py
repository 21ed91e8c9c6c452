# pypto.program: bt
import pypto.language as pl

@pl.program
class bt:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16], out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]) -> pl.Tensor[[32, 128], pl.FP32]:
        ta: pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[128, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        tb_t: pl.Tile[[64, 128], pl.FP16, pl.Mem.Mat] = pl.tile.transpose(tb, 0, 1)
        ta_Left: pl.Tile[[32, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(ta, target_memory=pl.Mem.Left)
        tb_Right: pl.Tile[[64, 128], pl.FP16, pl.Mem.Right] = pl.tile.move(tb_t, target_memory=pl.Mem.Right)
        c: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta_Left, tb_Right)
        r: pl.Tensor[[32, 128], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return r
