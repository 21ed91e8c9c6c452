"""Mixed kernels (docs/mixed-kernels.md): an AIC and an AIV kernel of one Group exchange tiles through the
cluster's cross-core pipe, compiled with ir.compile and run on a2a3sim against torch."""

import re

import pytest
import torch
from mixed_programs import PushPop, gather_columns, shard_rows
from pass_runner import run_one_pass

import pypto
import pypto.language as pl
from pypto import ir
from pypto.runtime import RunConfig





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


# ---------------------------------------------------------------- kernels the compiler splits (ExpandMixedKernel)

SPLITS = [pl.SplitMode.NONE, pl.SplitMode.UP_DOWN, pl.SplitMode.LEFT_RIGHT]


def fused_linear(mode):
    """matmul on the cube core, bias + ReLU on the vector cores, in one pl.at scope split by `mode`."""

    @pl.jit
    def linear_relu(x: pl.Tensor[[64, 128], pl.FP16], w: pl.Tensor[[128, 64], pl.FP16],
                    b: pl.Tensor[[1, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(mode)]):
            acc = pl.matmul(pl.load(x, [0, 0], [64, 128], target_memory=pl.Mem.Mat),
                            pl.load(w, [0, 0], [128, 64], target_memory=pl.Mem.Mat))
            out = pl.store(pl.relu(pl.col_expand_add(acc, pl.load(b, [0, 0], [1, 64]))), [0, 0], out)
        return out

    return linear_relu


@pytest.mark.parametrize("mode", SPLITS, ids=str)
def test_one_scope_with_a_matmul_and_vector_work_runs_as_a_cluster_task_matching_torch(mode):
    torch.manual_seed(0)
    x, w, b = torch.randn(64, 128).half(), torch.randn(128, 64).half(), torch.randn(1, 64)
    out = torch.full((64, 64), float("nan"))
    fused_linear(mode)(x, w, b, out, config=RunConfig(platform="a2a3sim"))
    torch.testing.assert_close(out, torch.relu(x.float() @ w.float() + b), rtol=1e-4, atol=1e-4)


def k_loop(slots):
    """A K loop: each step's matmul crosses to the vector lanes, which add it up, through a ring of `slots`."""

    @pl.jit
    def k_loop(x: pl.Tensor[[64, 256], pl.FP16], w: pl.Tensor[[256, 64], pl.FP16],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP,
                   optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=slots)]):
            acc = pl.tile.full([64, 64], 0.0, dtype=pl.FP32)
            for k in pl.range(4):
                part = pl.matmul(pl.load(x, [0, k * 64], [64, 64], target_memory=pl.Mem.Mat),
                                 pl.load(w, [k * 64, 0], [64, 64], target_memory=pl.Mem.Mat))
                acc = pl.add(acc, part)
            out = pl.store(acc, [0, 0], out)
        return out

    return k_loop


@pytest.mark.parametrize("slots", [1, 2, 4])
def test_a_k_loop_streams_one_partial_product_per_step_through_rings_of_1_2_and_4_slots(slots, tmp_path):
    torch.manual_seed(1)
    x, w = torch.randn(64, 256).half(), torch.randn(256, 64).half()
    out = torch.zeros(64, 64)
    k_loop(slots)(x, w, out, config=RunConfig(platform="a2a3sim", save_kernels_dir=str(tmp_path)))
    torch.testing.assert_close(out, x.float() @ w.float(), rtol=1e-4, atol=1e-3)
    aic = next(tmp_path.glob("kernels/aic/*_aic.cpp")).read_text()
    assert f"AIC_INITIALIZE_PIPE(1, 8192, {slots}" in aic  # a lane's half of a 64 x 64 FP32 tile per slot


def test_fifty_runs_of_a_split_kernel_with_a_one_slot_ring_give_identical_bits():
    torch.manual_seed(2)
    x, w = torch.randn(64, 256).half(), torch.randn(256, 64).half()
    kernel = k_loop(1)
    first = torch.zeros(64, 64)
    kernel(x, w, first, config=RunConfig(platform="a2a3sim"))
    for _ in range(49):
        again = torch.full((64, 64), float("nan"))
        kernel(x, w, again, config=RunConfig(platform="a2a3sim"))
        assert torch.equal(again, first)


@pl.jit
def scale_then_matmul(x: pl.Tensor[[64, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32],
                      out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]):
        h = pl.mul(pl.load(x, [0, 0], [64, 64]), 2.0)
        out = pl.store(pl.matmul(pl.move(h, target_memory=pl.Mem.Mat),
                                 pl.load(w, [0, 0], [64, 64], target_memory=pl.Mem.Mat)), [0, 0], out)
    return out


def test_vector_results_cross_to_the_cube_core_gathered_from_both_lanes():
    torch.manual_seed(3)
    x, w = torch.randn(64, 64), torch.randn(64, 64)
    out = torch.zeros(64, 64)
    scale_then_matmul(x, w, out, config=RunConfig(platform="a2a3sim"))
    torch.testing.assert_close(out, (2 * x) @ w, rtol=1e-4, atol=1e-3)


def test_holding_more_popped_tiles_than_slots_is_a_compile_error_at_the_users_scope():
    @pl.jit
    def three_at_once(x: pl.Tensor[[32, 64], pl.FP16], w: pl.Tensor[[64, 96], pl.FP16],
                      out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=1)]):
            tx = pl.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
            a = pl.matmul(tx, pl.load(w, [0, 0], [64, 32], target_memory=pl.Mem.Mat))
            b = pl.matmul(tx, pl.load(w, [0, 32], [64, 32], target_memory=pl.Mem.Mat))
            out = pl.store(pl.add(a, b), [0, 0], out)
        return out

    with pytest.raises(pypto.InvalidValueError, match=r"test_mixed_kernels\.py:\d+.*in function 'three_at_once_incore_0', "
                       r"kernel 'three_at_once_incore_0_aiv' holds 2 tiles popped from the AIC at once .* "
                       r"slot_num=1 .* raise pl\.cross_core_slot\(slot_num=2\)"):
        three_at_once(torch.zeros(32, 64).half(), torch.zeros(64, 96).half(), torch.zeros(32, 32),
                      config=RunConfig(platform="a2a3sim"))


@pl.program
class DynamicCount:
    @pl.function(type=pl.FunctionType.AIC)
    def producer(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                 n: pl.Scalar[pl.INT32]):
        pl.aic_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=1)
        for i in pl.range(n):
            pl.tpush_to_aiv(pl.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Mat))
        return

    @pl.function(type=pl.FunctionType.AIV)
    def consumer(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                 n: pl.Scalar[pl.INT32]) -> pl.Tensor[[16, 64], pl.FP32]:
        pl.aiv_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=1)
        for i in pl.range(n):
            a = pl.tpop_from_aic(shape=[16, 64], dtype=pl.FP32)
            out = pl.store(a, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Group)
    def mixed(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
              n: pl.Scalar[pl.INT32]) -> pl.Tensor[[16, 64], pl.FP32]:
        self.producer(x, out, n)
        out = self.consumer(x, out, n)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             n: pl.Scalar[pl.INT32]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.mixed(x, out, n)
        return out


def test_a_pop_without_free_the_compiler_cannot_count_deadlocks_and_the_run_reports_the_ring(tmp_path):
    compiled = ir.compile(DynamicCount, tmp_path, config=RunConfig(platform="a2a3sim"))
    with pytest.raises(pypto.KernelFault, match=r"cross-core pipe deadlock .* ring C2V lane 0 \(pushed 1, popped 1, "
                       r"freed 0, 1 of 1 slots in use\).* popped 1 tiles? but freed 0"):
        compiled(torch.randn(16, 64), torch.zeros(16, 64), 2)


def test_cross_core_slot_prints_with_the_split_and_becomes_an_attribute_of_the_outlined_kernel(tmp_path):
    @pl.program
    class Scoped:
        @pl.function
        def main(self, x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="k",
                       optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=4)]):
                out = pl.store(pl.exp(pl.load(x, [0, 0], [32, 32])), [0, 0], out)
            return out

    text = ir.as_python(Scoped)
    assert "optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=4)]" in text
    assert ir.structural_equal(pl.parse(text), Scoped)
    outlined = ir.as_python(run_one_pass("OutlineIncoreScopes", Scoped, tmp_path))
    assert 'pl.func_attr({"split": pl.SplitMode.UP_DOWN, "cross_core_slot": 4})' in outlined
    assert "self.k(x, out)" in outlined


@pytest.mark.parametrize("option, message", [
    ("pl.cross_core_slot(slot_num=0)", r"slot_num must be a positive literal integer, got 0"),
    ("pl.cross_core_slot()", r"pl\.cross_core_slot needs slot_num"),
    ("pl.cross_core_slot(slots=2)", r"pl\.cross_core_slot takes one argument, slot_num"),
])
def test_a_bad_cross_core_slot_is_a_parse_error(option, message):
    source = f"""
import pypto.language as pl

@pl.program
class Bad:
    @pl.function
    def main(self, x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[{option}]):
            out = pl.store(pl.exp(pl.load(x, [0, 0], [32, 32])), [0, 0], out)
        return out
"""
    with pytest.raises(pl.ParseError, match=message):
        pl.parse(source)


# ---------------------------------------------------------------- kernels split by hand (pl.split_aiv)

def test_a_split_aiv_region_reads_its_lanes_half_of_a_cube_tile_with_aiv_shard():
    torch.manual_seed(4)
    x, w, b = torch.randn(64, 128).half(), torch.randn(128, 64).half(), torch.randn(1, 64)
    out = torch.full((64, 64), float("nan"))
    shard_rows(x, w, b, out, config=RunConfig(platform="a2a3sim"))
    torch.testing.assert_close(out, torch.relu(x.float() @ w.float() + b), rtol=1e-4, atol=1e-4)


def test_aic_gather_joins_the_lanes_halves_for_the_cube_core():
    torch.manual_seed(5)
    x, w = torch.randn(64, 64), torch.randn(64, 64)
    out = torch.zeros(64, 64)
    gather_columns(x, w, out, config=RunConfig(platform="a2a3sim"))
    torch.testing.assert_close(out, (2 * x) @ w, rtol=1e-4, atol=1e-3)


def test_a_split_aiv_region_prints_and_parses_back(tmp_path):
    @pl.program
    class Region:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                pl.store(pl.exp(pl.load(x, [lane * 32, 0], [32, 64])), [lane * 32, 0], out)
            return

    text = ir.as_python(Region)
    assert "with pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):" in text
    assert "lane: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()" in text
    assert ir.structural_equal(pl.parse(text), Region)


@pytest.mark.parametrize("body, message", [
    ("""        t = pl.exp(pl.load(x, [0, 0], [32, 32]))
        for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            pl.store(t, [lane * 32, 0], out)""", r"the vector work at .* is outside the pl\.split_aiv regions"),
    ("""        for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            m = pl.matmul(pl.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Mat),
                          pl.load(w, [0, 0], [64, 32], target_memory=pl.Mem.Mat))
            pl.store(m, [0, 0], out)""", r"the cube work at .* is inside a pl\.split_aiv region"),
])
def test_hand_split_kernels_keep_vector_work_in_regions_and_cube_work_out(body, message, tmp_path):
    source = f"""
import pypto.language as pl

@pl.program
class Bad:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], w: pl.Tensor[[64, 32], pl.FP32],
          out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]):
{body}
        return

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], w: pl.Tensor[[64, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]):
        self.k(x, w, out)
        return
"""
    with pytest.raises(pypto.InvalidValueError, match=message):
        ir.compile(pl.parse(source), tmp_path, config=RunConfig(platform="a2a3sim"))


def test_aiv_shard_outside_a_region_is_a_parse_error():
    with pytest.raises(pl.ParseError, match=r"pl\.aiv_shard\(x\) hands a cube tile to the lanes of a pl\.split_aiv "
                       r"region"):
        @pl.jit
        def stray(x: pl.Tensor[[64, 64], pl.FP16], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP):
                acc = pl.matmul(pl.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Mat),
                                pl.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Mat))
                out = pl.store(pl.aiv_shard(acc), [0, 0], out)
            return out

        stray(torch.zeros(64, 64).half(), torch.zeros(64, 64))


@pl.jit
def wide_exp(x: pl.Tensor[[128, 128], pl.FP16], w: pl.Tensor[[128, 128], pl.FP16],
             out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=2)]):
        acc = pl.matmul(pl.load(x, [0, 0], [128, 128], target_memory=pl.Mem.Mat),
                        pl.load(w, [0, 0], [128, 128], target_memory=pl.Mem.Mat))
        out = pl.store(pl.add(pl.exp(acc), acc), [0, 0], out)
    return out


def test_on_a5_the_ring_takes_the_consumers_ub_and_the_error_counts_it():
    x, w = torch.randn(128, 128).half() / 8, torch.randn(128, 128).half() / 8
    out = torch.zeros(128, 128)
    wide_exp(x, w, out, config=RunConfig(platform="a2a3sim"))  # the ring is in global memory here
    product = x.float() @ w.float()
    torch.testing.assert_close(out, torch.exp(product) + product, rtol=1e-3, atol=1e-3)
    with pytest.raises(pypto.InvalidValueError, match=r"function 'wide_exp_incore_0_aiv' needs 262144 bytes of Vec "
                       r"\(of which 131072 are reserved for cross-core rings: the ring of the pipe it consumes, or "
                       r"pl\.reserve_buffer; lower pl\.cross_core_slot\(slot_num=\) .*\) but platform 'a5sim' has 245760"):
        wide_exp(x, w, torch.zeros(128, 128), config=RunConfig(platform="a5sim"))


def test_a_split_mixed_kernel_runs_on_a5_with_its_ring_in_ub():
    torch.manual_seed(6)
    x, w, b = torch.randn(64, 128).half(), torch.randn(128, 64).half(), torch.randn(1, 64)
    out = torch.zeros(64, 64)
    fused_linear(pl.SplitMode.UP_DOWN)(x, w, b, out, config=RunConfig(platform="a5sim"))
    torch.testing.assert_close(out, torch.relu(x.float() @ w.float() + b), rtol=1e-4, atol=1e-4)


@pl.jit
def row_blocks(x: pl.Tensor[[64, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP16],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for r in pl.range(0, 64, 32):
            acc = pl.matmul(pl.load(x, [r, 0], [32, 64], target_memory=pl.Mem.Mat),
                            pl.load(w, [0, 0], [64, 64], target_memory=pl.Mem.Mat))
            out = pl.store(pl.relu(acc), [r, 0], out)
    return out


def test_a_tensor_written_in_a_loop_of_a_mixed_kernel_is_the_groups_result():
    torch.manual_seed(7)
    x, w = torch.randn(64, 64).half(), torch.randn(64, 64).half()
    out = torch.zeros(64, 64)
    assert row_blocks(x, w, out, config=RunConfig(platform="a2a3sim")) is out
    torch.testing.assert_close(out, torch.relu(x.float() @ w.float()), rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------- rings in the consumer's buffer (A5)

def reserved_program(consumer_reserves: str, producer_imports: str):
    source = f"""
import pypto.language as pl

@pl.program
class Reserved:
    @pl.function(type=pl.FunctionType.AIC)
    def producer(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        ring = pl.import_peer_buffer(name="{producer_imports}", peer=self.consumer)
        pl.aic_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=2)
        pl.tpush_to_aiv(pl.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Mat))
        pl.tpush_to_aiv(pl.load(x, [16, 0], [16, 64], target_memory=pl.Mem.Mat))
        return

    @pl.function(type=pl.FunctionType.AIV)
    def consumer(self, x: pl.Tensor[[32, 64], pl.FP32],
                 out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        ring = pl.reserve_buffer(name="{consumer_reserves}", size=8192, base=pl.AUTO)
        pl.aiv_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=2)
        for i in pl.range(2):
            a = pl.tpop_from_aic(shape=[16, 64], dtype=pl.FP32)
            out = pl.store(pl.add(a, 1.0), [i * 16, 0], out)
            pl.tfree_to_aic(a)
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
"""
    return pl.parse(source)


@pytest.mark.parametrize("platform", ["a2a3sim", "a5sim"])
def test_a_reserved_ring_keeps_its_bytes_free_and_the_producer_imports_its_address(platform, tmp_path):
    compiled = ir.compile(reserved_program("c2v", "c2v"), tmp_path, config=RunConfig(platform=platform))
    x, out = torch.randn(32, 64), torch.zeros(32, 64)
    compiled(x, out)
    torch.testing.assert_close(out, x + 1, rtol=0, atol=0)
    consumer = (tmp_path / "kernels/aiv/consumer.cpp").read_text()
    producer = (tmp_path / "kernels/aic/producer.cpp").read_text()
    assert "const int64_t ring = int64_t{0};" in consumer and "const int64_t ring = int64_t{0};" in producer
    addresses = [int(a, 16) for a in re.findall(r"TASSIGN\(\w+, (0x[0-9a-f]+)", consumer)]
    assert addresses and min(addresses) >= 8192  # the consumer's tiles sit above the 8192 reserved bytes


def test_importing_a_buffer_the_peer_never_reserved_names_both(tmp_path):
    with pytest.raises(pypto.InvalidValueError, match=r"in kernel 'producer', pl\.import_peer_buffer\(name=\"v2c\", "
                       r"peer=consumer\) finds no buffer 'v2c' reserved by kernel 'consumer'"):
        ir.compile(reserved_program("c2v", "v2c"), tmp_path, config=RunConfig(platform="a5sim"))


# ---------------------------------------------------------------- co-scheduling with pl.cluster()

@pl.program
class Clustered:
    """The AIC and AIV kernels of PushPop, co-scheduled by a pl.cluster() region instead of a Group function."""

    @pl.function(type=pl.FunctionType.AIC)
    def producer(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        pl.aic_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=2)
        pl.tpush_to_aiv(pl.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Mat))
        pl.tpush_to_aiv(pl.load(x, [16, 0], [16, 64], target_memory=pl.Mem.Mat))
        return

    @pl.function(type=pl.FunctionType.AIV)
    def consumer(self, x: pl.Tensor[[32, 64], pl.FP32],
                 out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        pl.aiv_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=2)
        for i in pl.range(2):
            a = pl.tpop_from_aic(shape=[16, 64], dtype=pl.FP32)
            out = pl.store(pl.add(a, 1.0), [i * 16, 0], out)
            pl.tfree_to_aic(a)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.cluster():
            self.producer(x, out)
            out = self.consumer(x, out)
        return out


def test_kernels_called_in_a_cluster_region_run_together_on_one_cluster(tmp_path):
    # Outside a cluster task a pipe op faults ("not part of a cluster task"): the region made one.
    compiled = ir.compile(Clustered, tmp_path, config=RunConfig(platform="a2a3sim"))
    x, out = torch.randn(32, 64), torch.zeros(32, 64)
    compiled(x, out)
    torch.testing.assert_close(out, x + 1, rtol=0, atol=0)
