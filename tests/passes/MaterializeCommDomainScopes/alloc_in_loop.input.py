# pypto.program: per_rank
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class per_rank:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def per_rank(self, x: pl.Tensor[[NR, 1, 64], pl.FP32]):
        for r in pl.range(0, pld.system.world_size(), 1):
            buf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256)
            pld.system.dispatch(r, pld.tensor.rank_slice(x, r), pld.tensor.window(buf, [1, 64], dtype=pl.FP32), program="publish_dev")
