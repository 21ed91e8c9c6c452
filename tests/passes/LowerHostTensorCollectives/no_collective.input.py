# pypto.program: const_dev
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class const_dev:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def const_dev(self, g: pl.Tensor[[NR, 1, 64], pl.FP32], out: pl.Out[pl.Tensor[[NR, 1, 64], pl.FP32]]):
        buf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256, attrs={"comm_domain": "comm_d0", "comm_devices": [0, 2]})
        w: pld.DistributedTensor[[1, 64], pl.FP32] = pld.tensor.window(buf, [1, 64], dtype=pl.FP32, attrs={"comm_domain": "comm_d0", "comm_devices": [0, 2]})
        pld.system.dispatch(0, pld.tensor.rank_slice(g, 0), w, program="publish_dev")
        pld.system.dispatch(2, w, pld.tensor.rank_slice(out, 2), program="collect_dev")
