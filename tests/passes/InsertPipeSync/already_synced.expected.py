# pypto.program: already_synced
import pypto.language as pl

@pl.program
class already_synced:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP16]]) -> pl.Tensor[[64, 64], pl.FP16]:
        base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        base_vec_1: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(2048, memory_space=pl.Mem.Vec)
        pl.system.sync_src(set_pipe=4, wait_pipe=1, event_id=0)
        pl.system.sync_src(set_pipe=2, wait_pipe=4, event_id=0)
        for i, (acc,) in pl.range(0, 64, 16, init_values=(out,)):
            pl.system.sync_dst(set_pipe=4, wait_pipe=1, event_id=0)
            t: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.load(x, [i, 0], [16, 64], target_memory=pl.Mem.Vec)
            pl.system.sync_src(set_pipe=1, wait_pipe=4, event_id=0)
            pl.system.sync_dst(set_pipe=1, wait_pipe=4, event_id=0)
            pl.system.sync_dst(set_pipe=2, wait_pipe=4, event_id=0)
            u: pl.Tile[[16, 64], pl.FP16, pl.MemRef("mem_vec_1", 4096, 2048, pl.Mem.Vec, base=base_vec_1), pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP16)
            pl.system.sync_src(set_pipe=4, wait_pipe=2, event_id=0)
            pl.system.sync_src(set_pipe=4, wait_pipe=1, event_id=0)
            pl.system.sync_dst(set_pipe=4, wait_pipe=2, event_id=0)
            acc_1: pl.Tensor[[64, 64], pl.FP16] = pl.tile.store(u, [i, 0], acc)
            pl.system.sync_src(set_pipe=2, wait_pipe=4, event_id=0)
            acc_2: pl.Tensor[[64, 64], pl.FP16] = pl.yield_(acc_1)
        pl.system.sync_dst(set_pipe=4, wait_pipe=1, event_id=0)
        pl.system.sync_dst(set_pipe=2, wait_pipe=4, event_id=0)
        return acc_2
