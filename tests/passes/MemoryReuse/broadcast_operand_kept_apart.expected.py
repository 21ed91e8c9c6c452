# pypto.program: broadcast_operand
import pypto.language as pl

@pl.program
class broadcast_operand:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, b: pl.Tensor[[1, 32], pl.FP32], x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        base_vec_2: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(128, memory_space=pl.Mem.Vec)
        first: pl.Tile[[32, 32], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], target_memory=pl.Mem.Vec)
        __tmp_v0: pl.Tile[[32, 32], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.exp(first)
        o: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(__tmp_v0, [0, 0], out)
        tb: pl.Tile[[1, 32], pl.FP32, pl.MemRef("mem_vec_2", 0, 128, pl.Mem.Vec, base=base_vec_2), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [1, 32], target_memory=pl.Mem.Vec)
        tx: pl.Tile[[32, 32], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], target_memory=pl.Mem.Vec)
        __tmp_v1: pl.Tile[[32, 32], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.col_expand_add(tx, tb)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(__tmp_v1, [0, 0], o)
        return r
