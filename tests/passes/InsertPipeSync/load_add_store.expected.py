# pypto.program: load_add_store
import pypto.language as pl

@pl.program
class load_add_store:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        base_vec_1: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        ta: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        tb: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_1", 4096, 4096, pl.Mem.Vec, base=base_vec_1), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        pl.system.sync_src(set_pipe=1, wait_pipe=4, event_id=0)
        pl.system.sync_dst(set_pipe=1, wait_pipe=4, event_id=0)
        s: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.add(ta, tb)
        pl.system.sync_src(set_pipe=4, wait_pipe=2, event_id=0)
        pl.system.sync_dst(set_pipe=4, wait_pipe=2, event_id=0)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(s, [0, 0], out)
        return r
