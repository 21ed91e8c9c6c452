# pypto.program: world_var
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class world_var:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def world_var(self, g: pl.Tensor[[NR, 1, 64], pl.FP32]):
        n: pl.Scalar[pl.INT64] = pld.system.world_size()
        a: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256, attrs={"comm_domain": "comm_d0"})
        b: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256, attrs={"comm_domain": "comm_d0"})
        for r in pl.range(0, n, 1):
            pld.system.dispatch(r, pld.tensor.rank_slice(g, r), pld.tensor.window(a, [1, 64], dtype=pl.FP32), program="publish_dev")
        for r_1 in pl.range(0, pld.system.world_size(), 1):
            pld.system.dispatch(r_1, pld.tensor.rank_slice(g, r_1), pld.tensor.window(b, [1, 64], dtype=pl.FP32), program="publish_dev")
