# pypto.program: rounds
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class rounds:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def rounds(self, x: pl.Tensor[[NR, 1, 64], pl.FP32]):
        buf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256)
        gw: pld.DistributedTensor[[1, 64], pl.FP32] = pld.tensor.window(buf, [1, 64], dtype=pl.FP32)
        for r in pl.range(0, pld.system.world_size(), 1):
            pld.system.dispatch(r, pld.tensor.rank_slice(x, r), gw, program="publish_dev")
        for i, (gw_1,) in pl.range(0, 3, 1, init_values=(gw,)):
            gw_2: pld.DistributedTensor[[1, 64], pl.FP32] = pld.tensor.allreduce(gw_1)
            gw_3: pld.DistributedTensor[[1, 64], pl.FP32] = pl.yield_(gw_2)
