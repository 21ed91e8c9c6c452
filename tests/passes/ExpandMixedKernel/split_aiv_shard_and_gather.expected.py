# pypto.program: split_aiv_shard_and_gather
import pypto.language as pl

@pl.program
class split_aiv_shard_and_gather:
    @pl.function(type=pl.FunctionType.Group)
    def k(self, x: pl.Tensor[[32, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16], v: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        self.k_aic(x, w, v, out)
        self.k_aiv(x, w, v, out)
        self.k_aiv(x, w, v, out)
        return out

    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(self, x: pl.Tensor[[32, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16], v: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        pl.system.aic_initialize_pipe(dir_mask=3, slot_size=2048, slot_num=2)
        __tmp_v0: pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        __tmp_v1: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        __tmp_v0_Left: pl.Tile[[32, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(__tmp_v0, target_memory=pl.Mem.Left)
        __tmp_v1_Right: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right] = pl.tile.move(__tmp_v1, target_memory=pl.Mem.Right)
        acc: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(__tmp_v0_Left, __tmp_v1_Right)
        pl.tile.tpush_to_aiv(acc, split=1)
        whole: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.tpop_from_aiv([32, 32], dtype=pl.FP32, split=1)
        __tmp_v3: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(v, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        whole_Left: pl.Tile[[32, 32], pl.FP32, pl.Mem.Left] = pl.tile.move(whole, target_memory=pl.Mem.Left)
        pl.system.tfree_to_aiv(whole)
        __tmp_v3_Right: pl.Tile[[32, 32], pl.FP32, pl.Mem.Right] = pl.tile.move(__tmp_v3, target_memory=pl.Mem.Right)
        __tmp_v4: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(whole_Left, __tmp_v3_Right)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(__tmp_v4, [0, 0], out)
        return

    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(self, x: pl.Tensor[[32, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16], v: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        pl.system.aiv_initialize_pipe(dir_mask=3, slot_size=2048, slot_num=2)
        lane: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        rows: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic([16, 32], dtype=pl.FP32, split=1)
        __tmp_v2: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(v, [lane * 16, 0], [16, 32], target_memory=pl.Mem.Vec)
        scaled: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(rows, __tmp_v2)
        pl.system.tfree_to_aic(rows)
        pl.tile.tpush_to_aic(scaled, split=1)
        return
