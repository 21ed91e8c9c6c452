# pypto.program: split_aiv_shard_and_gather
import pypto.language as pl

@pl.program
class split_aiv_shard_and_gather:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16], v: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        __tmp_v0: pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        __tmp_v1: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        __tmp_v0_Left: pl.Tile[[32, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(__tmp_v0, target_memory=pl.Mem.Left)
        __tmp_v1_Right: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right] = pl.tile.move(__tmp_v1, target_memory=pl.Mem.Right)
        acc: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(__tmp_v0_Left, __tmp_v1_Right)
        with pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            lane: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
            rows: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.aiv_shard(acc, split=1)
            __tmp_v2: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(v, [lane * 16, 0], [16, 32], target_memory=pl.Mem.Vec)
            scaled: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(rows, __tmp_v2)
        whole: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.aic_gather(scaled, split=1)
        __tmp_v3: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(v, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        whole_Left: pl.Tile[[32, 32], pl.FP32, pl.Mem.Left] = pl.tile.move(whole, target_memory=pl.Mem.Left)
        __tmp_v3_Right: pl.Tile[[32, 32], pl.FP32, pl.Mem.Right] = pl.tile.move(__tmp_v3, target_memory=pl.Mem.Right)
        __tmp_v4: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(whole_Left, __tmp_v3_Right)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(__tmp_v4, [0, 0], out)
        return r
