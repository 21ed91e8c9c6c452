# pypto.program: never_dispatched
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class never_dispatched:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def never_dispatched(self, x: pl.Tensor[[NR, 1, 64], pl.FP32]):
        buf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256)
        view: pld.DistributedTensor[[1, 64], pl.FP32] = pld.tensor.window(buf, [1, 64], dtype=pl.FP32)
