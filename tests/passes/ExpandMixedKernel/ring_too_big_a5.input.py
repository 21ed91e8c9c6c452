# pypto.program: ring_too_big_a5
import pypto.language as pl

@pl.program
class ring_too_big_a5:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[128, 128], pl.FP32], w: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        pl.func_attr({"cross_core_slot": 4})
        tx: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
        tw: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
        tx_Left: pl.Tile[[128, 128], pl.FP32, pl.Mem.Left] = pl.tile.move(tx, target_memory=pl.Mem.Left)
        tw_Right: pl.Tile[[128, 128], pl.FP32, pl.Mem.Right] = pl.tile.move(tw, target_memory=pl.Mem.Right)
        __tmp_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(tx_Left, tw_Right)
        __tmp_v0_Vec: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.move(__tmp_v0, target_memory=pl.Mem.Vec)
        __tmp_v1: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.exp(__tmp_v0_Vec)
        r: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(__tmp_v1, [0, 0], out)
        return r
