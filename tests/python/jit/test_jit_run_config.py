import dataclasses

import pytest

from pypto.runtime import PLATFORMS, BackendType, MemoryPlanner, OptimizationStrategy, RunConfig


def test_defaults_follow_the_manual():
    config = RunConfig()
    assert config.platform == "a2a3sim" and config.device_id == 0
    assert (config.rtol, config.atol) == (1e-5, 1e-5)
    assert config.strategy is OptimizationStrategy.Default
    assert config.backend_type is BackendType.Ascend910B
    assert config.pipeline == "default"
    assert config.dump_passes is False and config.save_kernels is False and config.save_kernels_dir is None
    assert config.codegen_only is False
    assert (config.enable_chip_swimlane, config.enable_dump_args, config.enable_pmu) == (0, 0, 0)
    assert not (config.enable_dep_gen or config.enable_scope_stats or config.compile_profiling)
    assert config.diagnostic_phase is None and config.disabled_diagnostics is None
    assert config.golden_data_dir is None and config.aicpu_thread_num is None
    assert (config.ring_task_window, config.ring_heap, config.ring_dep_pool) == (None, None, None)
    assert config.distributed_config is None and config.memory_planner is None
    assert config.analyze_auto_scopes_for_deps is False and config.dump_ptoas_passes is False


def test_every_field_of_the_manual_exists():
    names = {f.name for f in dataclasses.fields(RunConfig)}
    assert names >= {
        "platform", "device_id", "rtol", "atol", "strategy", "backend_type", "dump_passes", "save_kernels",
        "save_kernels_dir", "codegen_only", "enable_chip_swimlane", "enable_l2_swimlane", "enable_dump_args",
        "enable_pmu", "enable_dep_gen", "enable_scope_stats", "compile_profiling", "diagnostic_phase",
        "disabled_diagnostics", "golden_data_dir", "aicpu_thread_num", "ring_task_window", "ring_heap",
        "ring_dep_pool", "distributed_config", "analyze_auto_scopes_for_deps", "memory_planner",
        "dump_ptoas_passes", "pipeline"}


def test_unknown_platforms_list_the_valid_ones():
    with pytest.raises(ValueError, match=r"unknown platform 'a3'; valid platforms: a2a3, a2a3sim, a5, a5sim"):
        RunConfig(platform="a3")
    assert PLATFORMS == ("a2a3", "a2a3sim", "a5", "a5sim")


@pytest.mark.parametrize("platform, backend", [("a2a3", BackendType.Ascend910B), ("a2a3sim", BackendType.Ascend910B),
                                               ("a5", BackendType.Ascend950), ("a5sim", BackendType.Ascend950)])
def test_backend_is_derived_from_the_platform(platform, backend):
    assert RunConfig(platform=platform).backend_type is backend


def test_backend_type_is_not_an_argument():
    with pytest.raises(TypeError):
        RunConfig(backend_type=BackendType.Ascend950)


@pytest.mark.parametrize("field, good", [
    ("ring_task_window", [4, 8, 1024, [0, 4, 8, 16]]),
    ("ring_heap", [1024, 1 << 20, [1024, 0, 0, 2048]]),
    ("ring_dep_pool", [4, 5, 2**31 - 1, [4, 0, 100, 0]]),
])
def test_ring_sizes_that_are_accepted(field, good):
    for value in good:
        assert getattr(RunConfig(**{field: value}), field) == value


@pytest.mark.parametrize("field, bad, message", [
    ("ring_task_window", 6, "power of 2 >= 4"),
    ("ring_task_window", 2, "power of 2 >= 4"),
    ("ring_task_window", True, "power of 2 >= 4"),
    ("ring_task_window", 8.0, "power of 2 >= 4"),
    ("ring_heap", 512, r"power of 2 >= 1024 \(bytes per ring\)"),
    ("ring_heap", 3000, "power of 2 >= 1024"),
    ("ring_dep_pool", 3, r"in \[4, INT32_MAX\]"),
    ("ring_dep_pool", 2**31, r"in \[4, INT32_MAX\]"),
    ("ring_dep_pool", False, r"in \[4, INT32_MAX\]"),
    ("ring_heap", [1024, 1024], "a list of 4"),
    ("ring_task_window", [4, 4, 4, 6], r"entries must be 0 \(ring default\) or a power of 2 >= 4"),
    ("ring_task_window", [4, 4, 4, True], "entries must be 0"),
])
def test_ring_sizes_that_are_rejected(field, bad, message):
    with pytest.raises(ValueError, match=message):
        RunConfig(**{field: bad})


@pytest.mark.parametrize("field", ["device_id", "aicpu_thread_num"])
def test_bools_are_rejected_where_ints_are_expected(field):
    with pytest.raises(TypeError, match=f"RunConfig.{field} must be an int, got bool True"):
        RunConfig(**{field: True})


def test_enable_pmu_true_asks_for_every_event_group():
    assert RunConfig(enable_pmu=True).enable_pmu == 1
    assert RunConfig(enable_pmu=False).enable_pmu == 0


def test_negative_device_ids_are_rejected():
    with pytest.raises(ValueError, match="RunConfig.device_id must be >= 0"):
        RunConfig(device_id=-1)


@pytest.mark.parametrize("field", ["dump_passes", "save_kernels", "enable_dep_gen", "analyze_auto_scopes_for_deps"])
def test_flags_must_be_bools(field):
    with pytest.raises(TypeError, match=f"RunConfig.{field} must be True or False, got int 1"):
        RunConfig(**{field: 1})


def test_chip_swimlane_levels_and_true_means_four():
    assert RunConfig(enable_chip_swimlane=True).enable_chip_swimlane == 4
    assert RunConfig(enable_chip_swimlane=2).enable_chip_swimlane == 2
    with pytest.raises(ValueError, match=r"enable_chip_swimlane must be one of 0, 1, 2, 3, 4"):
        RunConfig(enable_chip_swimlane=5)


def test_the_l2_swimlane_alias_is_deprecated():
    with pytest.warns(DeprecationWarning, match="use enable_chip_swimlane"):
        config = RunConfig(enable_l2_swimlane=True)
    assert config.enable_chip_swimlane == 4 and config.enable_l2_swimlane is None


def test_dump_args_levels():
    assert RunConfig(enable_dump_args=True).enable_dump_args == 1
    assert RunConfig(enable_dump_args=2).enable_dump_args == 2
    with pytest.raises(ValueError, match="enable_dump_args must be one of 0, 1, 2"):
        RunConfig(enable_dump_args=3)


@pytest.mark.parametrize("flag", [{"enable_chip_swimlane": 1}, {"enable_dump_args": 2}, {"enable_pmu": 2},
                                  {"enable_dep_gen": True}, {"enable_scope_stats": True}])
def test_any_dfx_flag_keeps_the_kernels(flag):
    config = RunConfig(**flag)
    assert config.save_kernels is True and config.any_dfx_enabled()


def test_enums_are_checked():
    with pytest.raises(TypeError, match="RunConfig.strategy must be an OptimizationStrategy"):
        RunConfig(strategy="O3")
    with pytest.raises(TypeError, match="RunConfig.memory_planner must be a MemoryPlanner or None"):
        RunConfig(memory_planner="PTOAS")
    assert RunConfig(memory_planner=MemoryPlanner.DSA_RP).memory_planner is MemoryPlanner.DSA_RP


def test_tolerances_must_be_non_negative_numbers():
    with pytest.raises(ValueError, match="RunConfig.atol must be a non-negative number"):
        RunConfig(atol=-1.0)


def test_disabled_diagnostics_become_a_frozenset():
    assert RunConfig(disabled_diagnostics=["A", "B", "A"]).disabled_diagnostics == frozenset({"A", "B"})


def test_an_unknown_pipeline_fails_when_keyed():
    import pypto

    with pytest.raises(pypto.Error):
        RunConfig(pipeline="no-such-pipeline").compile_key()
