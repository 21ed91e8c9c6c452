# pypto.program: odd_rows_split
import pypto.language as pl

@pl.program
class odd_rows_split:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[31, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16], out: pl.Out[pl.Tensor[[31, 32], pl.FP32]]) -> pl.Tensor[[31, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        tx: pl.Tile[[31, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [31, 64], target_memory=pl.Mem.Mat)
        tw: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        tx_Left: pl.Tile[[31, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(tx, target_memory=pl.Mem.Left)
        tw_Right: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right] = pl.tile.move(tw, target_memory=pl.Mem.Right)
        __tmp_v0: pl.Tile[[31, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(tx_Left, tw_Right)
        __tmp_v0_Vec: pl.Tile[[31, 32], pl.FP32, pl.Mem.Vec] = pl.tile.move(__tmp_v0, target_memory=pl.Mem.Vec)
        __tmp_v1: pl.Tile[[31, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(__tmp_v0_Vec)
        r: pl.Tensor[[31, 32], pl.FP32] = pl.tile.store(__tmp_v1, [0, 0], out)
        return r
