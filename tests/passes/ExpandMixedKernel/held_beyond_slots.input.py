# pypto.program: held_beyond_slots
import pypto.language as pl

@pl.program
class held_beyond_slots:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 64], pl.FP16], w: pl.Tensor[[64, 96], pl.FP16], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"cross_core_slot": 1})
        tx: pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        __tmp_v0: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        tx_Left: pl.Tile[[32, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(tx, target_memory=pl.Mem.Left)
        __tmp_v0_Right: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right] = pl.tile.move(__tmp_v0, target_memory=pl.Mem.Right)
        a: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(tx_Left, __tmp_v0_Right)
        __tmp_v1: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 32], [64, 32], target_memory=pl.Mem.Mat)
        __tmp_v1_Right: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right] = pl.tile.move(__tmp_v1, target_memory=pl.Mem.Right)
        b: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(tx_Left, __tmp_v1_Right)
        __tmp_v2: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 64], [64, 32], target_memory=pl.Mem.Mat)
        __tmp_v2_Right: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right] = pl.tile.move(__tmp_v2, target_memory=pl.Mem.Right)
        c: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(tx_Left, __tmp_v2_Right)
        a_Vec: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)
        b_Vec: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.move(b, target_memory=pl.Mem.Vec)
        __tmp_v3: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(a_Vec, b_Vec)
        c_Vec: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.move(c, target_memory=pl.Mem.Vec)
        __tmp_v4: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(__tmp_v3, c_Vec)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(__tmp_v4, [0, 0], out)
        return r
