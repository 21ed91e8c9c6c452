# pypto.program: duplicate_names
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class duplicate_names:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def duplicate_names(self, g: pl.Tensor[[NR, 1, 64], pl.FP32]):
        buf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256)
        for r in pl.range(0, pld.system.world_size(), 1):
            pld.system.dispatch(r, pld.tensor.rank_slice(g, r), pld.tensor.window(buf, [1, 64], dtype=pl.FP32), program="publish_dev")
        buf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256)
        for r_1 in pl.range(0, pld.system.world_size(), 1):
            pld.system.dispatch(r_1, pld.tensor.rank_slice(g, r_1), pld.tensor.window(buf, [1, 64], dtype=pl.FP32), program="publish_dev")
