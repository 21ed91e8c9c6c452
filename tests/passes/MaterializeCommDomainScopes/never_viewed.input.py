# pypto.program: never_viewed
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class never_viewed:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def never_viewed(self, x: pl.Tensor[[NR, 1, 64], pl.FP32]):
        spare: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256)
        buf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256)
        for r in pl.range(0, pld.system.world_size(), 1):
            pld.system.dispatch(r, pld.tensor.rank_slice(x, r), pld.tensor.window(buf, [1, 64], dtype=pl.FP32), program="publish_dev")
