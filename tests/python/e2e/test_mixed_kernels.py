"""Mixed kernels (docs/mixed-kernels.md): an AIC and an AIV kernel of one Group exchange tiles through the
cluster's cross-core pipe, compiled with ir.compile and run on a2a3sim against torch."""

import pytest
import torch

import pypto
import pypto.language as pl
from pypto import ir
from pypto.runtime import RunConfig


@pl.program
class PushPop:
    @pl.function(type=pl.FunctionType.AIC)
    def producer(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        pl.aic_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=2)
        top = pl.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        pl.tpush_to_aiv(top)
        bottom = pl.load(x, [16, 0], [16, 64], target_memory=pl.Mem.Mat)
        pl.tpush_to_aiv(bottom)
        return

    @pl.function(type=pl.FunctionType.AIV)
    def consumer(self, x: pl.Tensor[[32, 64], pl.FP32],
                 out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        pl.aiv_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=2)
        a = pl.tpop_from_aic(shape=[16, 64], dtype=pl.FP32)
        out = pl.store(pl.add(a, 1.0), [0, 0], out)
        pl.tfree_to_aic(a)
        b = pl.tpop_from_aic(shape=[16, 64], dtype=pl.FP32)
        out = pl.store(pl.add(b, 1.0), [16, 0], out)
        pl.tfree_to_aic(b)
        return out

    @pl.function(type=pl.FunctionType.Group)
    def mixed(self, x: pl.Tensor[[32, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        self.producer(x, out)
        out = self.consumer(x, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        out = self.mixed(x, out)
        return out


def test_an_aic_kernel_pushes_two_tiles_that_an_aiv_kernel_pops_adds_one_to_and_stores(tmp_path):
    compiled = ir.compile(PushPop, tmp_path, config=RunConfig(platform="a2a3sim"))
    assert [p.relative_to(tmp_path).as_posix() for p in compiled.kernel_files] == [
        "kernels/aic/producer.cpp", "kernels/aiv/consumer.cpp"]
    x, out = torch.randn(32, 64), torch.full((32, 64), float("nan"))
    result = compiled(x, out)
    assert result is out
    torch.testing.assert_close(out, x + 1, rtol=0, atol=0)


def test_a_cube_side_pipe_op_in_an_aiv_kernel_is_a_codegen_error_naming_the_kernel_type(tmp_path):
    @pl.program
    class WrongSide:
        @pl.function(type=pl.FunctionType.AIV)
        def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
            pl.aic_initialize_pipe(dir_mask=1, slot_size=4096)
            return

        @pl.function(type=pl.FunctionType.Group)
        def g(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
            self.k(x, out)
            return

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
            self.g(x, out)
            return

    with pytest.raises(pypto.CodegenError, match=r"op 'system\.aic_initialize_pipe': a cross-core pipe op runs on the "
                       r"cube core: put it in a @pl\.function\(type=pl\.FunctionType\.AIC\) kernel .* 'k' is AIV"):
        ir.compile(WrongSide, tmp_path, config=RunConfig(platform="a2a3sim"))


def test_the_pipe_ops_are_pl_names_and_check_their_numbers():
    assert pl.tpush_to_aiv.tile_op == "tile.tpush_to_aiv"
    assert pl.tfree_to_aic.tile_op == "system.tfree_to_aic"
    assert pl.aiv_initialize_pipe.tile_op == "system.aiv_initialize_pipe"
    with pytest.raises(pl.ParseError, match=r"slot_num=6 exceeds the hardware's 4 slots per direction"):
        @pl.program
        class TooDeep:
            @pl.function(type=pl.FunctionType.AIV)
            def k(self, x: pl.Tensor[[16, 64], pl.FP32]):
                pl.aiv_initialize_pipe(dir_mask=3, slot_size=4096, slot_num=6)
                return
