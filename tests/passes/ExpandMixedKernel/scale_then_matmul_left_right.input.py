# pypto.program: scale_then_matmul_left_right
import pypto.language as pl

@pl.program
class scale_then_matmul_left_right:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 32], pl.FP32], w: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.LEFT_RIGHT})
        tx: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], target_memory=pl.Mem.Vec)
        h: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.muls(tx, 2.0)
        hm: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.move(h, target_memory=pl.Mem.Mat)
        tw: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        hm_Left: pl.Tile[[32, 32], pl.FP32, pl.Mem.Left] = pl.tile.move(hm, target_memory=pl.Mem.Left)
        tw_Right: pl.Tile[[32, 32], pl.FP32, pl.Mem.Right] = pl.tile.move(tw, target_memory=pl.Mem.Right)
        __tmp_v0: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(hm_Left, tw_Right)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(__tmp_v0, [0, 0], out)
        return r
