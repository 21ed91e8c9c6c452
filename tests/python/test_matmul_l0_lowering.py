"""Tensor-level pl.matmul (a_trans, b_trans, out_dtype) inside pl.at(CORE_GROUP) regions, lowered with
verification through outlining, ConvertTensorToTileOps, AutoTileMatmulL0 and memory planning, down to
addresses inside the platform's capacities (a2a3sim, the default platform)."""

import re

import pytest
import yaml

import pypto.language as pl
from pypto import ir, passes
from pypto.runtime import RunConfig

CHAIN = [
    "InlineFunctions", "UnrollLoops", "Simplify", "FlattenCallExpr", "OutlineHierarchyScopes",
    "OutlineIncoreScopes", "OutlineClusterScopes", "ConvertTensorToTileOps", "FlattenTileNdTo2D",
    "AutoTileMatmulL0", "InferTileMemorySpace", "InitMemRef", "MemoryReuse", "AllocateMemoryAddr",
    "DeriveCallDirections", "Simplify",
]

# a2a3's usable bytes per on-chip space (platforms/a2a3.yaml).
CAPACITY = {"Vec": 188416, "Mat": 524288, "Left": 65536, "Right": 65536, "Acc": 131072}


@pytest.fixture
def pipeline(tmp_path):
    return _write(tmp_path / "matmul_l0.yaml", CHAIN)


def _write(path, names):
    path.write_text(yaml.safe_dump({"name": "matmul_l0", "input_properties": ["SSAForm"], "verify": True,
                                    "passes": names}))
    return str(path)


def _lower(program, pipeline):
    return passes.PassManager(pipeline).run(program)


def _kernel_text(program) -> str:
    text = ir.as_python(program)
    assert "pl.FunctionType.InCore" in text
    return text


def _allocations(text: str) -> dict[str, int]:
    """The high-water mark per memory space: the end of the highest buffer placed in it."""
    high = {}
    for space, offset, size in _memrefs(text):
        high[space] = max(high.get(space, 0), offset + size)
    return high


def _memrefs(text: str):
    # pl.MemRef("<name>", <address>, <bytes>, pl.Mem.<space>, base=...) in the tile types.
    for match in re.finditer(r'pl\.MemRef\("\w+", (\d+), (\d+), pl\.Mem\.(\w+)', text):
        yield match.group(3), int(match.group(1)), int(match.group(2))


def _assert_inside_capacities(text: str):
    high = _allocations(text)
    assert high, "no addressed tiles in:\n" + text
    for space, end in high.items():
        assert end <= CAPACITY[space], f"{space} ends at {end} > {CAPACITY[space]}\n{text}"


@pl.program
class TransposedA:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[512, 128], pl.FP16], b: pl.Tensor[[512, 128], pl.FP16],
             out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b, a_trans=True, out_dtype=pl.FP32)
            out = pl.assemble(out, c, [0, 0])
        return out


@pl.program
class TransposedB:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[64, 128], pl.FP16]) -> pl.Tensor[[64, 64], pl.FP16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b, b_trans=True)
        return c


@pl.program
class TooBigForL0:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 512], pl.FP16], b: pl.Tensor[[512, 256], pl.FP16],
             out: pl.Out[pl.Tensor[[256, 256], pl.FP32]]) -> pl.Tensor[[256, 256], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b, out_dtype=pl.FP32)
            out = pl.assemble(out, c, [0, 0])
        return out


def test_a_transposed_lhs_is_transposed_in_mat_and_split_for_left(pipeline):
    text = _kernel_text(_lower(TransposedA, pipeline))
    transposed = r"a_tile_t: pl\.Tile\[\[128, 512\], pl\.FP16, [^\n]*pl\.Mem\.Mat\] = pl\.tile\.transpose\(a_tile, 0, 1"
    assert re.search(transposed, text)
    # A^T [128, 512] FP16 is 128 KiB, Left holds 64: two K steps of 256, cut out of the transposed tile.
    assert "pl.tile.extract(a_tile_t, 0, 0, [128, 256], target_memory=pl.Mem.Left)" in text
    assert "pl.tile.extract(a_tile_t, 0, 256, [128, 256], target_memory=pl.Mem.Left)" in text
    assert "pl.tile.matmul_acc(c_k0, a_tile_t_l0_1, b_tile_l0_1)" in text
    assert "pl.tile.cast" not in text
    _assert_inside_capacities(text)


def test_a_transposed_rhs_with_an_fp16_result_is_converted_by_the_store(pipeline):
    text = _kernel_text(_lower(TransposedB, pipeline))
    assert "pl.tile.transpose(b_tile, 0, 1)" in text
    assert "pl.tile.matmul(a_tile_Left, b_tile_t_Right)" in text
    # FP32 in Acc, stored as FP16: the store converts, no Vec round trip.
    assert "pl.tile.cast" not in text and "pl.Mem.Vec" not in text
    _assert_inside_capacities(text)


def test_a_matmul_too_big_for_l0_is_split_into_blocks_that_fit(pipeline):
    text = _kernel_text(_lower(TooBigForL0, pipeline))
    # a2a3: C [256, 256] FP32 is twice Acc, so N is split in two; K in four steps of 128.
    assert "for no, (out_iter,) in pl.range(0, 256, 128" in text
    assert "for ko, (c_partial,) in pl.range(128, 512, 128" in text
    assert "pl.tile.matmul_acc(" in text
    assert "pl.tile.move" not in text  # every L0 block is cut straight out of Mat
    _assert_inside_capacities(text)


@pl.jit
def jit_matmul(a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 256], pl.FP16],
               out: pl.Out[pl.Tensor[[64, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out = pl.assemble(out, pl.matmul(a, b, out_dtype=pl.FP32), [0, 0])
    return out


def test_a_jit_kernel_lowers_through_the_chain(pipeline, tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build"))
    text = _kernel_text(jit_matmul.lower(config=RunConfig(pipeline=pipeline)))
    assert "pl.tile.matmul(a_tile_Left, b_tile_Right)" in text
    _assert_inside_capacities(text)


def test_a_matmul_with_no_l0_tiling_names_the_function_shapes_and_fix(pipeline):
    @pl.program
    class Unaligned:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[128, 5000], pl.FP16], b: pl.Tensor[[5000, 128], pl.FP16],
                 out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.matmul(a, b, out_dtype=pl.FP32)
                out = pl.assemble(out, c, [0, 0])
            return out

    with pytest.raises(ValueError) as info:
        _lower(Unaligned, pipeline)
    message = str(info.value)
    assert "AutoTileMatmulL0: in function 'main_incore_0', tile.matmul of A [128, 5000] FP16" in message
    assert "K=5000 has no divisor that is a multiple of 16" in message
    assert "pad the extents to multiples of 16" in message
