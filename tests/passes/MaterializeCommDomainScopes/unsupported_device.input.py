# pypto.program: shifted
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class shifted:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def shifted(self, x: pl.Tensor[[NR, 1, 64], pl.FP32]):
        buf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256)
        for r in pl.range(0, pld.system.world_size(), 1):
            pld.system.dispatch((r + 1) % pld.system.world_size(), pld.tensor.rank_slice(x, r), pld.tensor.window(buf, [1, 64], dtype=pl.FP32), program="publish_dev")
