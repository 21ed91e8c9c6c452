# pypto.program: blocks_assembled_for_a_vector_consumer
import pypto.language as pl

@pl.program
class blocks_assembled_for_a_vector_consumer:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[4096, 16], pl.FP16], b: pl.Tensor[[16, 64], pl.FP16], out: pl.Out[pl.Tensor[[4096, 64], pl.FP16]]) -> pl.Tensor[[4096, 64], pl.FP16]:
        ta: pl.Tile[[4096, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [4096, 16], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        c_full: pl.Tile[[4096, 64], pl.FP32] = pl.tile.create([4096, 64], dtype=pl.FP32)
        for mo, (c_iter,) in pl.range(0, 4096, 2048, init_values=(c_full,)):
            for no, (c_iter_col,) in pl.range(0, 64, 16, init_values=(c_iter,)):
                ta_l0: pl.Tile[[2048, 16], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, mo, 0, [2048, 16], target_memory=pl.Mem.Left)
                tb_l0: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, 0, no, [16, 16], target_memory=pl.Mem.Right)
                c_k0: pl.Tile[[2048, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta_l0, tb_l0)
                c_put: pl.Tile[[4096, 64], pl.FP32] = pl.tile.assemble(c_iter_col, c_k0, [mo, no])
                c_iter_row: pl.Tile[[4096, 64], pl.FP32] = pl.yield_(c_put)
            c: pl.Tile[[4096, 64], pl.FP32] = pl.yield_(c_iter_row)
        h: pl.Tile[[4096, 64], pl.FP16, pl.Mem.Vec] = pl.tile.cast(c, target_type=pl.FP16)
        r: pl.Tensor[[4096, 64], pl.FP16] = pl.tile.store(h, [0, 0], out)
        return r
