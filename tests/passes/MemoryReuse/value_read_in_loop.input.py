# pypto.program: loop
import pypto.language as pl

@pl.program
class loop:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        base_vec_1: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        base_vec_2: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        base_vec_3: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        base_vec_4: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        base_vec_5: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        bias: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        scale: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_1", 0, 4096, pl.Mem.Vec, base=base_vec_1), pl.Mem.Vec] = pl.tile.exp(bias)
        init: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_2", 0, 4096, pl.Mem.Vec, base=base_vec_2), pl.Mem.Vec] = pl.tile.full([16, 64], 0.0, dtype=pl.FP32)
        for i, (acc,) in pl.range(0, 4, 1, init_values=(init,)):
            row: pl.Scalar[pl.INDEX] = i * 16
            part: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_3", 0, 4096, pl.Mem.Vec, base=base_vec_3), pl.Mem.Vec] = pl.tile.load(x, [row, 0], [16, 64], target_memory=pl.Mem.Vec)
            prod: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_4", 0, 4096, pl.Mem.Vec, base=base_vec_4), pl.Mem.Vec] = pl.tile.mul(part, scale)
            nxt: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_2", 0, 4096, pl.Mem.Vec, base=base_vec_2), pl.Mem.Vec] = pl.tile.add(acc, prod)
            total: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_2", 0, 4096, pl.Mem.Vec, base=base_vec_2), pl.Mem.Vec] = pl.yield_(nxt)
        res: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_5", 0, 4096, pl.Mem.Vec, base=base_vec_5), pl.Mem.Vec] = pl.tile.muls(total, 0.25)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(res, [0, 0], out)
        return r
