"""RunConfig: every option of one compile-and-run, in one place.

Kernels take their compile options only through ``config=RunConfig(...)``;
keyword arguments to a kernel are the kernel's parameters. The fields follow
the PyPTO user manual; ``pipeline`` (a pipeline name or YAML path),
``backend`` (the backend plugin that generates the kernels) and ``plugins``
(plugin folders or manifests loaded before compiling) are ours.
Options that change the generated program are part of the JIT cache key
(:meth:`RunConfig.compile_key`); the rest only affect the run.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import os
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

from pypto.runtime import pmu

PLATFORMS = ("a2a3", "a2a3sim", "a5", "a5sim")
DEFAULT_BACKEND = "npu"
INT32_MAX = 2**31 - 1
RING_COUNT = 4
CHIP_SWIMLANE_LEVELS = range(0, 5)
DUMP_ARGS_LEVELS = (0, 1, 2)


class OptimizationStrategy(enum.Enum):
    """How hard the compiler optimizes; only the default strategy exists."""

    Default = "Default"


class BackendType(enum.Enum):
    """The NPU generation code is generated for; derived from the platform."""

    Ascend910B = "Ascend910B"
    Ascend950 = "Ascend950"


class MemoryPlanner(enum.Enum):
    """Who assigns on-chip addresses. ``None`` in RunConfig means PYPTO."""

    PYPTO = "PYPTO"
    DSA_RP = "DSA_RP"
    PTOAS = "PTOAS"


def backend_for_platform(platform: str) -> BackendType:
    """a2a3* platforms run Ascend910B code, a5* platforms Ascend950 code."""
    return BackendType.Ascend950 if platform.startswith("a5") else BackendType.Ascend910B


def _is_int(value: object) -> bool:
    # bool is an int subclass; a ring size or a device id of True is a mistake.
    return isinstance(value, int) and not isinstance(value, bool)


def _is_pow2(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


def _require_int(name: str, value: object, *, allow_none: bool = False, minimum: int = 0) -> None:
    if value is None and allow_none:
        return
    if not _is_int(value):
        raise TypeError(f"RunConfig.{name} must be an int, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"RunConfig.{name} must be >= {minimum}, got {value}")


def _pmu_level(value: object) -> int:
    """enable_pmu as its int: True is 1 (every event group)."""
    if isinstance(value, bool):
        return int(value)
    _require_int("enable_pmu", value)
    pmu.check_level(value)
    return value


def _require_bool(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"RunConfig.{name} must be True or False, got {type(value).__name__} {value!r}")


def _level(name: str, value: object, levels: Any, true_means: int) -> int:
    """A DFX level: an int in `levels`, or a bool (True = `true_means`)."""
    if isinstance(value, bool):
        return true_means if value else 0
    if not _is_int(value) or value not in levels:
        allowed = ", ".join(str(v) for v in levels)
        raise ValueError(f"RunConfig.{name} must be one of {allowed} (or True/False), got {value!r}")
    return value


def _check_ring(name: str, value: object, valid: Any, rule: str) -> None:
    """A ring option is None, one value for all rings, or one per ring (0 = default)."""
    if value is None:
        return
    if isinstance(value, (list, tuple)):
        if len(value) != RING_COUNT:
            raise ValueError(f"RunConfig.{name} takes one value or a list of {RING_COUNT} (one per ring), "
                             f"got {len(value)} values")
        for item in value:
            if not (_is_int(item) and (item == 0 or valid(item))):
                raise ValueError(f"RunConfig.{name} entries must be 0 (ring default) or {rule}, got {item!r}")
        return
    if not (_is_int(value) and valid(value)):
        raise ValueError(f"RunConfig.{name} must be {rule}, got {value!r}")


def _freeze(value: Any) -> Any:
    """A hashable, deterministic form of a config value (dataclasses become name/value pairs)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__,) + tuple((f.name, _freeze(getattr(value, f.name)))
                                               for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return tuple(sorted((str(k), _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return tuple(sorted(_freeze(v) for v in value))
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    return value


# "1" turns RunConfig.check_pipe_hazards on where a config leaves it unset (the test suites set it).
CHECK_PIPE_HAZARDS_ENV = "PYPTO_CHECK_PIPE_HAZARDS"


@dataclass
class RunConfig:
    """Options of one compile and run. Validated on construction.

    Compile options (in the JIT cache key): ``platform`` (and the derived
    ``backend_type``), ``strategy``, ``pipeline``, ``distributed_config``,
    ``analyze_auto_scopes_for_deps``, ``memory_planner``, ``dump_ptoas_passes``,
    ``check_nan``, ``check_pipe_hazards``, ``backend``, ``plugins``. Everything else affects only
    dumps, reports or the run.

    ``backend`` names the backend plugin that generates the kernel functions
    (InCore, AIC, AIV); orchestration always goes to the ``host`` backend.
    ``plugins`` lists plugin folders (each holding a ``manifest.yaml``) or
    manifest files, loaded before compiling, so a pipeline may name their
    passes and ``backend`` their backends.

    ``check_nan=True`` (simulator platforms) builds kernels in which every tile
    instruction checks its result: the first NaN raises ``pypto.KernelFault``
    naming the kernel, the instruction, the user's source line and where in
    the tile the NaN is.

    ``check_pipe_hazards=True`` (simulator platforms) checks every kernel's
    pipe synchronization as it runs: an instruction that reads or writes
    on-chip memory (or global memory) that an instruction on another pipe
    touched, with no set_flag / wait_flag (or pipe_barrier) ordering the two,
    raises ``pypto.KernelFault`` naming both instructions, their lines and the
    event to add. The chip's pipes run asynchronously and the simulator's do
    not, so such a kernel computes the right numbers here and wrong ones on
    the chip. Unset (None) takes ``$PYPTO_CHECK_PIPE_HAZARDS`` (``1``: on),
    which the project's test suites set.
    """

    __test__ = False  # pytest: not a test class

    platform: str = "a2a3sim"
    device_id: int = 0
    rtol: float = 1e-5
    atol: float = 1e-5
    strategy: OptimizationStrategy = OptimizationStrategy.Default
    backend_type: BackendType = field(init=False)
    pipeline: str = "default"
    dump_passes: bool = False
    save_kernels: bool = False
    save_kernels_dir: str | None = None
    codegen_only: bool = False
    enable_chip_swimlane: int = 0
    enable_l2_swimlane: int | bool | None = None
    enable_dump_args: int = 0
    enable_pmu: int = 0
    enable_dep_gen: bool = False
    enable_scope_stats: bool = False
    compile_profiling: bool = False
    diagnostic_phase: str | None = None
    disabled_diagnostics: frozenset[str] | None = None
    golden_data_dir: str | None = None
    aicpu_thread_num: int | None = None
    ring_task_window: int | list[int] | None = None
    ring_heap: int | list[int] | None = None
    ring_dep_pool: int | list[int] | None = None
    distributed_config: Any = None
    analyze_auto_scopes_for_deps: bool = False
    memory_planner: MemoryPlanner | None = None
    dump_ptoas_passes: bool = False
    check_nan: bool = False
    check_pipe_hazards: bool | None = None
    backend: str = DEFAULT_BACKEND
    plugins: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.platform not in PLATFORMS:
            raise ValueError(f"unknown platform {self.platform!r}; valid platforms: {', '.join(PLATFORMS)}")
        self.backend_type = backend_for_platform(self.platform)
        if not isinstance(self.strategy, OptimizationStrategy):
            raise TypeError(f"RunConfig.strategy must be an OptimizationStrategy, got {self.strategy!r}")
        if not isinstance(self.pipeline, str) or not self.pipeline:
            raise TypeError(f"RunConfig.pipeline must be a pipeline name or a YAML path, got {self.pipeline!r}")
        if not isinstance(self.backend, str) or not self.backend:
            raise TypeError(f"RunConfig.backend must be a backend name such as {DEFAULT_BACKEND!r} "
                            f"(see `pypto backends`), got {self.backend!r}")
        self.plugins = _plugin_paths(self.plugins)
        if self.memory_planner is not None and not isinstance(self.memory_planner, MemoryPlanner):
            raise TypeError(f"RunConfig.memory_planner must be a MemoryPlanner or None, got {self.memory_planner!r}")
        _require_int("device_id", self.device_id)
        _require_int("aicpu_thread_num", self.aicpu_thread_num, allow_none=True, minimum=1)
        self.enable_pmu = _pmu_level(self.enable_pmu)
        if self.check_pipe_hazards is None:
            self.check_pipe_hazards = os.environ.get(CHECK_PIPE_HAZARDS_ENV, "") == "1"
        for tolerance in ("rtol", "atol"):
            value = getattr(self, tolerance)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f"RunConfig.{tolerance} must be a non-negative number, got {value!r}")
        for flag in ("dump_passes", "save_kernels", "codegen_only", "enable_dep_gen", "enable_scope_stats",
                     "compile_profiling", "analyze_auto_scopes_for_deps", "dump_ptoas_passes", "check_nan",
                     "check_pipe_hazards"):
            _require_bool(flag, getattr(self, flag))
        self._resolve_swimlane_alias()
        self.enable_chip_swimlane = _level("enable_chip_swimlane", self.enable_chip_swimlane,
                                           CHIP_SWIMLANE_LEVELS, true_means=4)
        self.enable_dump_args = _level("enable_dump_args", self.enable_dump_args, DUMP_ARGS_LEVELS, true_means=1)
        if self.disabled_diagnostics is not None:
            self.disabled_diagnostics = frozenset(self.disabled_diagnostics)
        _check_ring("ring_task_window", self.ring_task_window,
                    lambda v: _is_pow2(v) and v >= 4, "a power of 2 >= 4")
        _check_ring("ring_heap", self.ring_heap,
                    lambda v: _is_pow2(v) and v >= 1024, "a power of 2 >= 1024 (bytes per ring)")
        _check_ring("ring_dep_pool", self.ring_dep_pool,
                    lambda v: 4 <= v <= INT32_MAX, "in [4, INT32_MAX]")
        # DFX output lands next to the kernels, so keeping them is implied.
        if self.any_dfx_enabled():
            self.save_kernels = True

    def _resolve_swimlane_alias(self) -> None:
        if self.enable_l2_swimlane is None:
            return
        warnings.warn("RunConfig.enable_l2_swimlane is deprecated; use enable_chip_swimlane",
                      DeprecationWarning, stacklevel=4)
        if self.enable_chip_swimlane == 0:
            self.enable_chip_swimlane = self.enable_l2_swimlane
        self.enable_l2_swimlane = None

    def any_dfx_enabled(self) -> bool:
        """Whether any run-time diagnostic (swimlane, argument dump, PMU, dep graph, scope stats) is on."""
        return bool(self.enable_chip_swimlane or self.enable_dump_args or self.enable_pmu
                    or self.enable_dep_gen or self.enable_scope_stats)

    def compile_key(self) -> tuple[tuple[str, Any], ...]:
        """The options that change the compiled program, as hashable (name, value) pairs.

        The pipeline enters by content (its passes and options), so editing a
        pipeline YAML file invalidates programs compiled with it. Plugins
        enter by absolute path: a relative path means another plugin in
        another working directory.
        """
        fields = (self.platform, self.strategy, self.pipeline, self.analyze_auto_scopes_for_deps, self.memory_planner,
                  self.dump_ptoas_passes, self.check_nan, self.check_pipe_hazards, self.backend, self.plugins)
        # Kernel calls ask on every call: the fields are compared, not trusted, and the pipeline file is
        # looked at again (a stat), relative plugin paths resolved again, at most every _PIPELINE_RECHECK_SECONDS.
        memo = self.__dict__.get("_compile_key_memo")
        now = time.monotonic()
        if (memo is not None and memo[0] == fields and self.distributed_config is None
                and now - memo[2] < _PIPELINE_RECHECK_SECONDS):
            return memo[1]
        pipeline = _pipeline_contents(self.pipeline)
        planner = self.memory_planner or MemoryPlanner.PYPTO
        key = (
            ("platform", self.platform),
            ("backend_type", _freeze(self.backend_type)),
            ("strategy", _freeze(self.strategy)),
            ("pipeline", pipeline),
            ("distributed_config", _freeze(self.distributed_config)),
            ("analyze_auto_scopes_for_deps", self.analyze_auto_scopes_for_deps),
            ("memory_planner", _freeze(planner)),
            ("dump_ptoas_passes", self.dump_ptoas_passes),
            ("check_nan", self.check_nan),
            ("check_pipe_hazards", self.check_pipe_hazards),
            ("backend", self.backend),
            ("plugins", tuple(os.path.abspath(p) for p in self.plugins)),
        )
        self.__dict__["_compile_key_memo"] = (fields, key, now)
        return key


def _plugin_paths(value: Any) -> tuple[str, ...]:
    """RunConfig.plugins as a tuple of path strings; one bare path is a mistake for a list of one."""
    if isinstance(value, (str, os.PathLike)):
        raise TypeError(f"RunConfig.plugins takes a list of plugin folders or manifest files, got the single path "
                        f"{os.fspath(value)!r}; write plugins=[{os.fspath(value)!r}]")
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"RunConfig.plugins takes a list of plugin folders or manifest files, got "
                        f"{type(value).__name__} {value!r}")
    for index, path in enumerate(value):
        if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
            raise TypeError(f"RunConfig.plugins[{index}] must be the path of a plugin folder or manifest file, "
                            f"got {type(path).__name__} {path!r}")
    return tuple(os.fspath(path) for path in value)


# How long a RunConfig trusts its pipeline file unchanged: an edit takes effect within this time.
_PIPELINE_RECHECK_SECONDS = 0.5

# name or path (and the directory a relative path is read from) -> (file, its mtime, digest of its contents)
_PIPELINE_CONTENTS: dict[tuple[str, str], tuple[str, float, str]] = {}


def _modification_time(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return -1.0


def _pipeline_contents(name_or_path: str) -> str:
    """A digest of a pipeline's passes and options, re-read only when its file changes.

    The file's location is left out: the same pipeline is the same key
    wherever PyPTO is installed. A digest rather than the contents keeps the
    key cheap to hash on every kernel call.
    """
    lookup = (name_or_path, os.getcwd())
    cached = _PIPELINE_CONTENTS.get(lookup)
    if cached is not None and _modification_time(cached[0]) == cached[1]:
        return cached[2]
    from pypto import passes

    pipeline = dict(passes.load_pipeline(name_or_path))
    source = str(pipeline.pop("source"))
    contents = hashlib.sha256(repr(_freeze(pipeline)).encode()).hexdigest()
    _PIPELINE_CONTENTS[lookup] = (source, _modification_time(source), contents)
    return contents


def compile_option_names() -> frozenset[str]:
    """Names a user might pass to compile() directly: RunConfig fields and ir.compile's keywords."""
    fields = {f.name for f in dataclasses.fields(RunConfig)}
    ir_compile = {"output_dir", "skip_ptoas", "verification_level", "enable_pypto_l0c_double_buffer",
                  "profiling", "emit_source_loc", "runtime"}
    return frozenset(fields | ir_compile)
