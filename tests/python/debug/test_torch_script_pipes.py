"""The torch script runs a Group's kernels at once, exchanging tiles through the cross-core pipe as the simulator
does (docs/mixed-kernels.md): each kernel on a thread, per-lane rings of slot_num slots, splits that halve a tile
between the AIV lanes, and a deadlock that is a ModelError naming the ring and its counts, never a hang.

Each program runs as the torch script of the parsed and of the lowered program, and on the simulator, against
torch. A run that hangs fails its test: in-process runs have a deadline, the deadlock runs in a subprocess.
"""

import subprocess
import sys
import threading
import warnings

import pytest
import torch
from mixed_programs import PushPop

import pypto
import pypto.language as pl
from pypto import ir
from pypto.debug import load_torch_script, torch_codegen
from pypto.runtime import RunConfig

DEADLINE_S = 60


@pl.program
class SplitRows:
    """The AIC pushes a 32 x 64 tile split UP_DOWN; each lane pops its 16 rows and stores them, plus one, at its own."""

    @pl.function(type=pl.FunctionType.AIC)
    def producer(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        pl.aic_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=2)
        pl.tpush_to_aiv(pl.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Mat), split=1)
        return

    @pl.function(type=pl.FunctionType.AIV)
    def consumer(self, x: pl.Tensor[[32, 64], pl.FP32],
                 out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        pl.aiv_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=2)
        lane = pl.tile.get_subblock_idx()
        half = pl.tpop_from_aic(shape=[16, 64], dtype=pl.FP32, split=1)
        out = pl.store(pl.add(half, 1.0), [lane * 16, 0], out)
        pl.tfree_to_aic(half)
        return out

    @pl.function(type=pl.FunctionType.Group)
    def mixed(self, x: pl.Tensor[[32, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        self.producer(x, out)
        self.consumer(x, out)
        out = self.consumer(x, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        out = self.mixed(x, out)
        return out


@pl.program
class GatherRows:
    """V2C: each lane pushes twice its 16 rows; the AIC pops them gathered (UP_DOWN) as 32 x 64 and multiplies by w."""

    @pl.function(type=pl.FunctionType.AIV)
    def lane_rows(self, x: pl.Tensor[[32, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32],
                  out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        pl.aiv_initialize_pipe(dir_mask=2, slot_size=4096, slot_num=2)
        lane = pl.tile.get_subblock_idx()
        rows = pl.load(x, [lane * 16, 0], [16, 64])
        pl.tpush_to_aic(pl.mul(rows, 2.0), split=1)
        return

    @pl.function(type=pl.FunctionType.AIC)
    def gather(self, x: pl.Tensor[[32, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        pl.aic_initialize_pipe(dir_mask=2, slot_size=4096, slot_num=2)
        whole = pl.tpop_from_aiv(shape=[32, 64], dtype=pl.FP32, split=1)
        right = pl.move(pl.load(w, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        out = pl.store(pl.tile.matmul(pl.move(whole, target_memory=pl.Mem.Left), right), [0, 0], out)
        pl.tfree_to_aiv(whole)
        return out

    @pl.function(type=pl.FunctionType.Group)
    def mixed(self, x: pl.Tensor[[32, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        self.lane_rows(x, w, out)
        self.lane_rows(x, w, out)
        out = self.gather(x, w, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        out = self.mixed(x, w, out)
        return out


@pl.program
class LeakedSlot:
    """The consumer never frees its first pop, so with one slot the AIC's second push and the second pop wait
    on each other."""

    @pl.function(type=pl.FunctionType.AIC)
    def producer(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        pl.aic_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=1)
        tile = pl.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        pl.tpush_to_aiv(tile)
        pl.tpush_to_aiv(tile)
        return

    @pl.function(type=pl.FunctionType.AIV)
    def consumer(self, x: pl.Tensor[[16, 64], pl.FP32],
                 out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        pl.aiv_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=1)
        a = pl.tpop_from_aic(shape=[16, 64], dtype=pl.FP32)
        out = pl.store(a, [0, 0], out)
        b = pl.tpop_from_aic(shape=[16, 64], dtype=pl.FP32)
        out = pl.store(b, [0, 0], out)
        pl.tfree_to_aic(b)
        return out

    @pl.function(type=pl.FunctionType.Group)
    def mixed(self, x: pl.Tensor[[16, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        self.producer(x, out)
        out = self.consumer(x, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.mixed(x, out)
        return out


def within_deadline(run):
    """run()'s value; the test fails, rather than hangs, when it takes longer than DEADLINE_S."""
    outcome = {}

    def target():
        try:
            outcome["value"] = run()
        except BaseException as error:  # raised again in the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(DEADLINE_S)
    if thread.is_alive():
        pytest.fail(f"the torch script still runs after {DEADLINE_S} s: a wait on the pipe hangs")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def run_script(program, *args):
    """The arguments (clones) after the program's torch script ran on them."""
    args = [a.clone() for a in args]
    within_deadline(lambda: load_torch_script(torch_codegen(program)).ENTRY(*args))
    return args


def check_against_simulator(program, tmp_path, expected, *args):
    """The scripts of the parsed and of the lowered program, and the simulator, all compute `expected` (the last
    argument's final value); compiling leaves no warning (the torch script is written)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled = ir.compile(program, tmp_path, config=RunConfig(platform="a2a3sim"))
    assert (tmp_path / "debug" / f"{compiled.program.name}_torch.py").exists()
    simulated = [a.clone() for a in args]
    compiled(*simulated)
    for label, outputs in (("parsed", run_script(program, *args)), ("lowered", run_script(compiled, *args)),
                           ("simulator", simulated)):
        torch.testing.assert_close(outputs[-1], expected, rtol=1e-5, atol=1e-5, msg=lambda m: f"{label}: {m}")


def test_an_aic_kernel_pushes_two_tiles_that_an_aiv_kernel_pops_frees_and_stores(tmp_path):
    x = torch.randn(32, 64)
    check_against_simulator(PushPop, tmp_path, x + 1, x, torch.full((32, 64), float("nan")))


def test_the_script_runs_the_group_kernels_together_through_run_cluster():
    script = torch_codegen(PushPop)
    assert "_kernels = run_cluster('mixed', [" in script
    assert "('AIC', producer, [x, out])," in script and "('AIV', consumer, [x, out])," in script
    assert "out_1 = _kernels[1]  # call consumer (its result)" in script


def test_an_up_down_split_gives_each_lane_its_rows_and_get_subblock_idx_its_lane(tmp_path):
    x = torch.randn(32, 64)
    check_against_simulator(SplitRows, tmp_path, x + 1, x, torch.zeros(32, 64))


def test_the_aic_pops_the_lanes_tiles_gathered_up_down(tmp_path):
    x, w = torch.randn(32, 64), torch.randn(64, 64)
    check_against_simulator(GatherRows, tmp_path, (2 * x) @ w, x, w, torch.zeros(32, 64))


def test_a_pop_without_its_free_deadlocks_into_an_error_naming_the_ring_not_a_hang(tmp_path):
    path = tmp_path / "leaked_slot_torch.py"
    path.write_text(torch_codegen(LeakedSlot))
    try:
        run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the torch script of a deadlocked Group still runs after {DEADLINE_S} s")
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("ModelError: cross-core pipe deadlock in Group 'mixed': every kernel of the cluster is "
                           "waiting on the pipe or has finished, so no wait can end."), run.stderr
    assert ("'producer' on the AIC: waits in tile.tpush_to_aiv for a free slot of ring C2V lane 0 (pushed 1, popped "
            "1, freed 0, 1 of 1 slots in use): the consumer ('consumer' on AIV lane 0) popped 1 tiles but freed 0: a "
            "tile.tpop_from_aic without its system.tfree_to_aic keeps its slot") in last
    assert ("'consumer' on AIV lane 0: waits in tile.tpop_from_aic for a tile of ring C2V lane 0 (pushed 1, popped 1, "
            "freed 0, 1 of 1 slots in use)") in last


def test_a_kernel_given_a_value_computed_in_the_group_is_a_codegen_error():
    """The kernels start together on the Group's parameters, so none can take what another returns."""
    @pl.program
    class Chained:
        @pl.function(type=pl.FunctionType.AIV)
        def k(self, x: pl.Tensor[[16, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            out = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Group)
        def g(self, x: pl.Tensor[[16, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            out = self.k(x, out)
            out = self.k(x, out)
            return out

    with pytest.raises(pypto.CodegenError, match=r"backend 'torch': in function 'g': op 'k': the Group passes "
                                                 r"'out', a value computed inside it, to 'k'"):
        torch_codegen(Chained)


# ---- the prelude's pipe on its own: kernels as Python functions run by run_cluster

@pytest.fixture(scope="module")
def prelude():
    return load_torch_script(torch_codegen(PushPop))


def tile(prelude, rows, cols, valid):
    values = torch.arange(rows * cols, dtype=torch.float32).reshape(rows, cols)
    return prelude.Tile(values, list(valid))


def spec(prelude, rows, cols):
    return prelude.TileSpec([rows, cols], torch.float32, [rows, cols])


def test_a_split_cuts_the_valid_region_between_the_lanes(prelude):
    """17 valid rows of 32 arrive as 16 on lane 0 and 1 on lane 1; LEFT_RIGHT halves the columns likewise."""
    source = tile(prelude, 32, 64, [17, 40])
    popped = {}

    def aic():
        prelude.system_aic_initialize_pipe(None, dir_mask=1, slot_size=8192)
        prelude.tile_tpush_to_aiv(None, source, split=1)
        prelude.tile_tpush_to_aiv(None, source, split=2)

    def aiv():
        prelude.system_aiv_initialize_pipe(None, dir_mask=1, slot_size=8192)
        lane = prelude.tile_get_subblock_idx(None)
        popped[lane, "rows"] = prelude.tile_tpop_from_aic(spec(prelude, 16, 64), [16, 64], split=1)
        popped[lane, "cols"] = prelude.tile_tpop_from_aic(spec(prelude, 32, 32), [32, 32], split=2)

    within_deadline(lambda: prelude.run_cluster("g", [("AIC", aic, []), ("AIV", aiv, []), ("AIV", aiv, [])]))
    assert [popped[lane, "rows"].valid for lane in (0, 1)] == [[16, 40], [1, 40]]
    assert [popped[lane, "cols"].valid for lane in (0, 1)] == [[17, 32], [17, 8]]
    assert torch.equal(popped[1, "rows"].region(), source.data[16:17, :40])
    assert torch.equal(popped[1, "cols"].region(), source.data[:17, 32:40])


def test_the_aics_pop_gathers_left_right_and_takes_lane_0s_tile_under_none(prelude):
    popped = []

    def aic():
        prelude.system_aic_initialize_pipe(None, dir_mask=2, slot_size=4096)
        popped.append(prelude.tile_tpop_from_aiv(spec(prelude, 16, 64), [16, 64], split=2))
        popped.append(prelude.tile_tpop_from_aiv(spec(prelude, 16, 32), [16, 32], split=0))

    def aiv():
        prelude.system_aiv_initialize_pipe(None, dir_mask=2, slot_size=4096)
        part = prelude.Tile(torch.full((16, 32), float(prelude.tile_get_subblock_idx(None))), [16, 32])
        prelude.tile_tpush_to_aic(None, part, split=2)
        prelude.tile_tpush_to_aic(None, part, split=0)

    within_deadline(lambda: prelude.run_cluster("g", [("AIC", aic, []), ("AIV", aiv, []), ("AIV", aiv, [])]))
    assert torch.equal(popped[0].data, torch.cat([torch.zeros(16, 32), torch.ones(16, 32)], dim=1))
    assert torch.equal(popped[1].data, torch.zeros(16, 32))


@pytest.mark.parametrize("misuse, message", [
    ("free", r"system\.tfree_to_aic on 'aiv' on AIV lane 0 in Group 'g': frees a slot of ring C2V lane 0 it never "
             r"popped \(popped 0, freed 0\)"),
    ("odd", r"split 1 halves the tile's box, but its extent along the split axis is 31, odd"),
    ("one lane", r"split 1 shares the tile between two AIV lanes, but the Group runs 1"),
])
def test_misuse_is_a_model_error_at_once(prelude, misuse, message):
    def aic():
        prelude.system_aic_initialize_pipe(None, dir_mask=1, slot_size=8192)
        if misuse != "free":
            prelude.tile_tpush_to_aiv(None, tile(prelude, 31 if misuse == "odd" else 32, 64, [16, 64]), split=1)

    def aiv():
        prelude.system_aiv_initialize_pipe(None, dir_mask=1, slot_size=8192)
        if misuse == "free":
            prelude.system_tfree_to_aic(None, None)

    lanes = [("AIV", aiv, [])] * (2 if misuse == "odd" else 1)
    with pytest.raises(prelude.ModelError, match=message):
        within_deadline(lambda: prelude.run_cluster("g", [("AIC", aic, [])] + lanes))


def test_a_pipe_op_outside_a_group_is_a_model_error(prelude):
    with pytest.raises(prelude.ModelError, match=r"tile\.tpush_to_aiv: a cross-core pipe op in a kernel that does "
                                                  r"not run as part of a Group"):
        prelude.tile_tpush_to_aiv(None, tile(prelude, 16, 64, [16, 64]))
