"""Arguments to parameter types, scalar values and cache keys."""

import fake_pl as pl
import numpy as np
import pytest
import torch

from pypto import ir
from pypto.jit import jit

DT = ir.DataType
TILE = 16


@jit
def add(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    return out


@jit
def typed(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    return out


N = pl.dynamic("N")


@jit
def rows(a: pl.Tensor[[N, 64], pl.FP16], b: pl.Tensor[[N, 64], pl.FP16], scale: pl.Scalar[pl.FP32]):
    return a


TORCH_DTYPES = [
    ("bool", DT.BOOL), ("int8", DT.INT8), ("int16", DT.INT16), ("int32", DT.INT32), ("int64", DT.INT64),
    ("uint8", DT.UINT8), ("uint16", DT.UINT16), ("uint32", DT.UINT32), ("uint64", DT.UINT64),
    ("float16", DT.FP16), ("bfloat16", DT.BF16), ("float32", DT.FP32), ("float64", DT.FP64),
    ("float8_e4m3fn", DT.FP8E4M3FN), ("float8_e5m2", DT.FP8E5M2), ("float8_e8m0fnu", DT.FP8E8M0),
]


@pytest.mark.parametrize("name, dtype", TORCH_DTYPES)
def test_torch_dtypes_map_to_pypto_dtypes(name, dtype):
    if not hasattr(torch, name):
        pytest.skip(f"torch {torch.__version__} has no {name}")
    t = torch.empty((4, 8), dtype=getattr(torch, name))
    spec = add.specialize(t, t, t)
    assert spec.param_types["a"].dtype == dtype
    assert [d.value for d in spec.param_types["a"].shape] == [4, 8]
    assert spec.key.as_dict()["tensors"]["a"] == {"shape": (4, 8), "dtype": dtype.name, "layout": None}


def test_packed_fp4_counts_two_values_per_torch_element():
    if not hasattr(torch, "float4_e2m1fn_x2"):
        pytest.skip("torch has no float4_e2m1fn_x2")
    t = torch.empty((4, 8), dtype=torch.uint8).view(torch.float4_e2m1fn_x2)
    spec = add.specialize(t, t, t)
    assert spec.param_types["a"].dtype == DT.FP4
    assert [d.value for d in spec.param_types["a"].shape] == [4, 16]


NUMPY_DTYPES = [
    ("bool", DT.BOOL), ("int8", DT.INT8), ("int16", DT.INT16), ("int32", DT.INT32), ("int64", DT.INT64),
    ("uint8", DT.UINT8), ("uint16", DT.UINT16), ("uint32", DT.UINT32), ("uint64", DT.UINT64),
    ("float16", DT.FP16), ("float32", DT.FP32), ("float64", DT.FP64),
]


@pytest.mark.parametrize("name, dtype", NUMPY_DTYPES)
def test_numpy_dtypes_map_to_pypto_dtypes(name, dtype):
    x = np.zeros((3, 5), dtype=name)
    spec = add.specialize(x, x, x)
    assert spec.param_types["b"].dtype == dtype
    assert [d.value for d in spec.param_types["b"].shape] == [3, 5]


def test_numpy_and_torch_tensors_of_one_shape_and_dtype_share_a_key():
    x, t = np.zeros((2, 2), dtype=np.float32), torch.zeros(2, 2)
    assert add.specialize(x, x, x).key == add.specialize(t, t, t).key


def test_unsupported_dtypes_are_named():
    t = torch.zeros(2, dtype=torch.complex64)
    with pytest.raises(TypeError, match=r"parameter 'a': torch dtype complex64 has no PyPTO dtype; supported: bool"):
        add.specialize(t, t, t)


def test_dynamic_dims_are_one_shared_var_and_none_in_the_key():
    a, b = torch.zeros(128, 64, dtype=torch.float16), torch.zeros(128, 64, dtype=torch.float16)
    spec = rows.specialize(a, b, 0.5)
    dim_a, dim_b = spec.param_types["a"].shape[0], spec.param_types["b"].shape[0]
    assert isinstance(dim_a, ir.Var) and dim_a.name_hint == "N"
    assert dim_a is dim_b or ir.structural_equal(dim_a, dim_b)
    assert spec.param_types["a"].shape[1].value == 64
    assert spec.key.as_dict()["tensors"]["a"]["shape"] == (None, 64)
    other = rows.specialize(torch.zeros(256, 64, dtype=torch.float16), torch.zeros(256, 64, dtype=torch.float16), 0.5)
    assert other.key == spec.key


def test_dynamic_dims_must_agree_between_parameters():
    a, b = torch.zeros(128, 64, dtype=torch.float16), torch.zeros(96, 64, dtype=torch.float16)
    with pytest.raises(ValueError, match=r"dynamic dimension 'N' is 128 in 'a' dimension 0 but 96 in 'b' dimension 0"):
        rows.specialize(a, b, 0.5)


def test_scalars_are_specialization_constants():
    a = torch.zeros(8, 64, dtype=torch.float16)
    spec = rows.specialize(a, a, 0.5)
    assert spec.scalar_values == {"scale": 0.5}
    assert spec.key.as_dict()["scalars"] == {"scale": 0.5}
    assert rows.specialize(a, a, 0.25).key != spec.key
    assert "scale" not in spec.param_types


def test_numpy_scalars_become_python_values():
    a = torch.zeros(8, 64, dtype=torch.float16)
    assert rows.specialize(a, a, np.float32(0.5)).scalar_values == {"scale": 0.5}


def test_program_name_is_jit_and_the_entry_name():
    t = torch.zeros(64, 64)
    assert typed.specialize(t, t).program_name == "_jit_typed"


def test_fully_annotated_kernels_specialize_without_arguments():
    spec = typed.specialize()
    assert spec.key == typed.specialize(torch.zeros(64, 64), torch.zeros(64, 64)).key
    assert ir.structural_equal(spec.param_types["out"], ir.TensorType([64, 64], DT.FP32))


def test_key_holds_the_compile_options_of_the_run_config():
    from pypto.runtime import RunConfig

    t = torch.zeros(64, 64)
    options = typed.specialize(t, t, config=RunConfig(platform="a5sim")).key.as_dict()["compile_options"]
    assert options["platform"] == "a5sim"
    assert options["backend_type"] == "BackendType.Ascend950"
    assert options["strategy"] == "OptimizationStrategy.Default"
    assert options["memory_planner"] == "MemoryPlanner.PYPTO"
    assert len(options["pipeline"]) == 64  # a digest of the pipeline's passes and options
    assert set(options) == {"platform", "backend_type", "strategy", "pipeline", "distributed_config",
                            "analyze_auto_scopes_for_deps", "memory_planner", "dump_ptoas_passes", "check_nan",
                            "check_pipe_hazards", "backend", "plugins"}


@pytest.mark.parametrize("change", [
    {"platform": "a2a3"}, {"pipeline": "debug"}, {"analyze_auto_scopes_for_deps": True},
    {"dump_ptoas_passes": True}, {"distributed_config": (0, 1)}, {"check_nan": True},
    # The suite checks pipe hazards by default (conftest.py): switching it off changes what the build checks.
    {"check_pipe_hazards": False},
])
def test_output_changing_options_change_the_key(change):
    from pypto.runtime import MemoryPlanner, RunConfig

    t = torch.zeros(64, 64)
    base = typed.specialize(t, t, config=RunConfig()).key
    assert typed.specialize(t, t, config=RunConfig(**change)).key != base
    assert typed.specialize(t, t, config=RunConfig(memory_planner=MemoryPlanner.PTOAS)).key != base


@pytest.mark.parametrize("change", [
    {"dump_passes": True}, {"compile_profiling": True}, {"save_kernels_dir": "elsewhere"}, {"device_id": 3},
    {"diagnostic_phase": "PostPipeline"}, {"disabled_diagnostics": {"UnusedControlFlowResult"}},
    {"enable_pmu": 2}, {"rtol": 1e-2},
])
def test_other_options_do_not_change_the_key(change):
    from pypto.runtime import RunConfig

    t = torch.zeros(64, 64)
    assert typed.specialize(t, t, config=RunConfig(**change)).key == typed.specialize(t, t, config=RunConfig()).key


def test_source_hash_covers_discovered_dependencies_and_folded_constants():
    @jit.incore
    def helper(x: pl.Tensor):
        return x

    @jit
    def entry(x: pl.Tensor):
        return helper(x) + TILE

    assert entry.dependencies() == [helper]
    before = entry.source_hash()
    assert len(before) == 64 and before == entry.source_hash()

    global TILE
    saved = TILE
    TILE = 32
    try:
        assert entry.source_hash() != before
    finally:
        TILE = saved
    assert entry.source_hash() == before


def test_changing_a_dependency_changes_the_hash():
    def make(body_constant):
        if body_constant:
            @jit.inline
            def helper(x: pl.Tensor):
                return x + 1
        else:
            @jit.inline
            def helper(x: pl.Tensor):
                return x + 2

        @jit
        def entry(x: pl.Tensor):
            return helper(x)

        return entry

    assert make(True).source_hash() != make(False).source_hash()


def test_a_plain_jit_entry_does_not_discover_another_entry():
    @jit
    def other(x: pl.Tensor):
        return x

    @jit.incore
    def inner(x: pl.Tensor):
        return x

    @jit
    def entry(x: pl.Tensor):
        return other(inner(x))

    assert entry.dependencies() == [inner]


def test_dependencies_are_transitive_and_listed_once():
    @jit.inline
    def leaf(x: pl.Tensor):
        return x

    @jit.incore
    def mid(x: pl.Tensor):
        return leaf(leaf(x))

    @jit.opaque
    def top(x: pl.Tensor):
        return mid(x)

    @jit
    def entry(x: pl.Tensor):
        return top(mid(x))

    assert entry.dependencies() == [top, mid, leaf]


def test_external_source_contents_enter_the_hash(tmp_path):
    import importlib.util
    import textwrap

    kernel_file = tmp_path / "ext_kernel.py"
    kernel_file.write_text(textwrap.dedent("""
        import fake_pl as pl
        from pypto.jit import jit

        @jit.incore(external_source="add.cpp")
        def ext(a: pl.Tensor):
            ...
    """))
    cpp = tmp_path / "add.cpp"
    cpp.write_text("// v1\n")
    spec = importlib.util.spec_from_file_location("ext_kernel", kernel_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    first = module.ext.source_hash()
    cpp.write_text("// v2\n")
    assert module.ext.source_hash() != first


Mat64 = pl.Tensor[[64, 64], pl.BF16]


@jit
def aliased(a: Mat64):
    return a


def test_module_level_type_aliases_are_read():
    spec = aliased.param_specs()[0]
    assert (spec.kind, spec.shape, spec.dtype) == ("tensor", (64, 64), DT.BF16)
    with pytest.raises(TypeError, match=r"parameter 'a' expects dtype BF16 \(Mat64\) but got a torch tensor "
                                        r"of dtype FP32"):
        aliased(torch.zeros(64, 64))


def test_param_specs_read_directions_dynamic_dims_and_scalars():
    specs = {s.name: s for s in rows.param_specs()}
    assert specs["a"].shape == (pl_dim("N"), 64)
    assert specs["scale"].kind == "scalar" and specs["scale"].dtype == DT.FP32
    out = {s.name: s for s in typed.param_specs()}["out"]
    assert out.direction == "Out" and out.fully_annotated


def pl_dim(name):
    from pypto.jit import DynamicDim

    return DynamicDim(name)


def test_editing_a_pipeline_file_changes_the_key(tmp_path):
    import os

    from pypto.runtime import RunConfig

    pipeline = tmp_path / "mine.yaml"
    pipeline.write_text("name: mine\ndescription: d\ninput_properties: [SSAForm]\npasses: []\n")
    t = torch.zeros(64, 64)
    before = typed.specialize(t, t, config=RunConfig(pipeline=str(pipeline))).key
    assert typed.specialize(t, t, config=RunConfig(pipeline=str(pipeline))).key == before
    pipeline.write_text("name: mine\ndescription: d\ninput_properties: [SSAForm]\npasses: [Simplify]\n")
    stat = pipeline.stat()
    os.utime(pipeline, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert typed.specialize(t, t, config=RunConfig(pipeline=str(pipeline))).key != before


def test_rebinding_a_dimension_constant_is_seen_by_the_annotations():
    global WIDTH
    WIDTH = 8

    @jit
    def by_width(a: pl.Tensor[[WIDTH], pl.FP32]):
        return a

    assert by_width.param_specs()[0].shape == (8,)
    by_width.specialize(torch.zeros(8))
    WIDTH = 16
    assert by_width.param_specs()[0].shape == (16,)
    with pytest.raises(ValueError, match=r"expects shape \[16\]"):
        by_width.specialize(torch.zeros(8))
