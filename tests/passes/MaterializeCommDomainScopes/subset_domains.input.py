# pypto.program: subsets
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class subsets:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def subsets(self, x: pl.Tensor[[NR, 1, 64], pl.FP32], out: pl.Out[pl.Tensor[[NR, 1, 64], pl.FP32]]):
        a_buf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256)
        b_buf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256)
        a: pld.DistributedTensor[[1, 64], pl.FP32] = pld.tensor.window(a_buf, [1, 64], dtype=pl.FP32)
        for r in pl.range(0, 2, 1):
            pld.system.dispatch(r, pld.tensor.rank_slice(x, r), a, program="publish_dev")
        for r_1 in pl.range(1, 3, 1):
            pld.system.dispatch(r_1, pld.tensor.rank_slice(x, r_1), pld.tensor.window(b_buf, [1, 64], dtype=pl.FP32), program="publish_dev")
        for r_2 in pl.range(0, 2, 1):
            pld.system.dispatch(r_2, a, pld.tensor.rank_slice(out, r_2), program="collect_dev")
