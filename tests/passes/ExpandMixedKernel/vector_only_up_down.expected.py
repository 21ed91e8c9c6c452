# pypto.program: vector_only_up_down
import pypto.language as pl

@pl.program
class vector_only_up_down:
    @pl.function(type=pl.FunctionType.Group)
    def k(self, x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        self.k_aiv(x, out)
        self.k_aiv(x, out)
        return out

    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(self, x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        lane: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        __tmp_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0 + lane * 16, 0], [16, 32], target_memory=pl.Mem.Vec)
        __tmp_v1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(__tmp_v0)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(__tmp_v1, [0 + lane * 16, 0], out)
        return
