# pypto.program: cube
import pypto.language as pl

@pl.program
class cube:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 128], pl.FP16], out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]) -> pl.Tensor[[32, 128], pl.FP32]:
        base_mat_0: pl.Ptr[pl.Mem.Mat] = pl.tile.alloc(4096, memory_space=pl.Mem.Mat)
        base_mat_1: pl.Ptr[pl.Mem.Mat] = pl.tile.alloc(16384, memory_space=pl.Mem.Mat)
        base_left_0: pl.Ptr[pl.Mem.Left] = pl.tile.alloc(4096, memory_space=pl.Mem.Left)
        base_right_0: pl.Ptr[pl.Mem.Right] = pl.tile.alloc(16384, memory_space=pl.Mem.Right)
        base_acc_0: pl.Ptr[pl.Mem.Acc] = pl.tile.alloc(16384, memory_space=pl.Mem.Acc)
        ta: pl.Tile[[32, 64], pl.FP16, pl.MemRef("mem_mat_0", 0, 4096, pl.Mem.Mat, base=base_mat_0), pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[64, 128], pl.FP16, pl.MemRef("mem_mat_1", 4096, 16384, pl.Mem.Mat, base=base_mat_1), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
        la: pl.Tile[[32, 64], pl.FP16, pl.MemRef("mem_left_0", 0, 4096, pl.Mem.Left, base=base_left_0), pl.Mem.Left] = pl.tile.move(ta, target_memory=pl.Mem.Left)
        rb: pl.Tile[[64, 128], pl.FP16, pl.MemRef("mem_right_0", 0, 16384, pl.Mem.Right, base=base_right_0), pl.Mem.Right] = pl.tile.move(tb, target_memory=pl.Mem.Right)
        c: pl.Tile[[32, 128], pl.FP32, pl.MemRef("mem_acc_0", 0, 16384, pl.Mem.Acc, base=base_acc_0), pl.Mem.Acc] = pl.tile.matmul(la, rb)
        r: pl.Tensor[[32, 128], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return r
