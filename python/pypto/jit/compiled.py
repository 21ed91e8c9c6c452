"""CompiledProgram: what compile() returns, and what a kernel call dispatches to.

A compiled program owns its output folder (kernels/, orchestration/, report/,
debug/, compiled_meta.json) and, where the platform's toolchain runs here,
the built executable: kernels and orchestration linked into the process.
Calling it binds torch or numpy arguments without copies, runs the
orchestration on the (simulated) device and returns like the kernel's
``return`` statement: ``pl.Out``/``pl.InOut`` arguments are written in place
and returned as the very objects passed in.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pypto import KernelFault, ir, plugins
from pypto.jit import codegen
from pypto.jit.cache import SpecializationKey
from pypto.runtime import dfx
from pypto.runtime.config import BackendType
from pypto._core.runtime import Tensor as RuntimeTensor

META_FILE = "compiled_meta.json"
_FLOAT_FORMATS = {"FP32": ("<f", "<I"), "FP64": ("<d", "<Q"), "FP16": ("<e", "<H")}


@dataclass(frozen=True)
class ProgramParam:
    """One parameter of the orchestration function: a tensor or a scalar of `dtype`."""

    name: str
    kind: str  # "tensor" | "scalar"
    dtype: str
    shape: tuple[Any, ...] = ()
    direction: str = "In"


@dataclass(frozen=True)
class CompiledProgram:
    """A specialized, lowered and built program and the folder its artifacts are in.

    ``perf_hints`` are the performance hints of the compile (``ir.Diagnostic``
    values, as written to ``perf_hints_log``; see docs/diagnostics.md).
    ``executable`` is None where the platform cannot run on this machine
    (``a2a3``/``a5`` without the Ascend toolchain); ``unavailable`` then says
    what is missing.
    """

    program: ir.Program | None
    output_dir: Path
    platform: str
    backend_type: BackendType
    param_names: tuple[str, ...]
    key: SpecializationKey | None
    entry: str
    params: tuple[ProgramParam, ...]
    result_count: int
    artifacts: tuple[Any, ...] = ()
    executable: Any = None
    toolchain: str = "simulator"
    unavailable: str = ""
    perf_hints: tuple[Any, ...] = ()
    check_nan: bool = False  # kernels built with RunConfig(check_nan=True)
    check_pipe_hazards: bool = False  # runs check pipe synchronization (RunConfig(check_pipe_hazards=True))
    backend: str = codegen.KERNEL_BACKEND  # RunConfig.backend: the backend that generated the kernels
    plugins: tuple[str, ...] = ()  # RunConfig.plugins, absolute: from_dir loads them again
    # Function name -> further #include folders of its kernel (codegen.kernel_include_dirs): from_dir needs
    # them to rebuild an external kernel compiled with include_dirs=.
    kernel_include_dirs: dict[str, list[str]] = field(default_factory=dict)
    _state: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    # ------------------------------------------------------------- the folder

    @property
    def report_dir(self) -> Path:
        """Where compile() writes perf_hints.log and compile_profile.{txt,json}."""
        return self.output_dir / "report"

    @property
    def perf_hints_log(self) -> Path:
        """One line per performance hint: ``CODE severity file:line function: message (fix: ...)``."""
        return self.report_dir / "perf_hints.log"

    @property
    def passes_dump_dir(self) -> Path:
        """Where the program after every pass was printed, when dump_passes was on."""
        return self.output_dir / "passes_dump"

    @property
    def kernel_files(self) -> list[Path]:
        """The generated kernel sources, kernels/aic/*.cpp and kernels/aiv/*.cpp."""
        return sorted((self.output_dir / "kernels").glob("*/*.cpp"))

    @property
    def orchestration_files(self) -> list[Path]:
        return sorted((self.output_dir / "orchestration").glob("*.ll"))

    @property
    def can_run(self) -> bool:
        return self.executable is not None

    # ------------------------------------------------------------------- call

    @property
    def dfx_dir(self) -> Path:
        """Where a run with a DFX flag (RunConfig.enable_chip_swimlane, enable_dep_gen) writes its outputs."""
        return self.output_dir / dfx.DFX_DIR

    def __call__(self, *args: Any, config: Any = None, **kwargs: Any) -> Any:
        """Runs the program on the arguments (positional in parameter order, or by name).

        Of `config` only the DFX flags matter here: the rest was fixed when the program was compiled.
        """
        values = self._bind(args, kwargs)
        return self.run_bound(values, config)

    def run_bound(self, values: dict[str, Any], config: Any = None) -> Any:
        """Runs on arguments given by parameter name (what a kernel call has already bound)."""
        return self._run([values[p.name] for p in self.params], config)

    def run_positional(self, kernel_args: tuple[Any, ...], config: Any = None) -> Any:
        """Runs on a kernel call's positional arguments (specialized scalars among them are skipped)."""
        positions = self._state.get("positions")
        if positions is None:
            positions = self._state["positions"] = [self.param_names.index(p.name) for p in self.params]
        return self._run([kernel_args[i] for i in positions], config)

    def _run(self, args: list[Any], config: Any = None) -> Any:
        if self.executable is None:
            raise KernelFault(f"cannot run '{self.entry}' on platform '{self.platform}': {self.unavailable}")
        if not self._state.get("inputs_saved"):
            self._state["inputs_saved"] = True
            _save_debug_inputs(self.output_dir, self.params,
                               args, [self._slot(p, a) for p, a in zip(self.params, args)])
        # Tensors go to the executable as they are (it shares their memory); scalars as their bit patterns.
        values = [a if p.kind == "tensor" else scalar_bits(a, p.dtype) for p, a in zip(self.params, args)]
        if dfx.wants_trace(config):
            results = self._run_traced(values, config)
        else:
            results = self.executable.run(self.entry, values)
        return self._return_value(results, args)

    def _run_traced(self, values: list[Any], config: Any) -> list[Any]:
        """Runs with the runtime recording what it did, and writes the DFX outputs `config` asks for."""
        results, trace = self.executable.run_traced(self.entry, values, args_dump=config.enable_dump_args)
        dfx.write_outputs(trace, self.output_dir, config, entry=self.entry, platform=self.platform)
        return results

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        names = [p.name for p in self.params]
        if len(args) > len(names):
            raise TypeError(f"{self.entry}() takes {len(names)} arguments ({', '.join(names)}), got {len(args)}")
        values = dict(zip(names, args))
        for name, value in kwargs.items():
            if name not in names:
                raise TypeError(f"{self.entry}() has no parameter '{name}'; its parameters are {', '.join(names)}")
            if name in values:
                raise TypeError(f"{self.entry}() got two values for '{name}'")
            values[name] = value
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError(f"{self.entry}() is missing {', '.join(repr(m) for m in missing)}")
        return values

    @staticmethod
    def _slot(param: ProgramParam, value: Any) -> Any:
        if param.kind == "tensor":
            return value if isinstance(value, RuntimeTensor) else RuntimeTensor(value)
        return scalar_bits(value, param.dtype)

    def _return_value(self, results: list[Any], args: list[Any]) -> Any:
        """Results that are arguments come back as those objects; fresh ones as the caller's kind of array."""
        if self.result_count == 0:
            return None
        returned = tuple(_to_user_array(r, args) if isinstance(r, RuntimeTensor) and not any(r is a for a in args)
                         else r for r in results)
        return returned[0] if self.result_count == 1 else returned

    # ------------------------------------------------------------ persistence

    def write_meta(self) -> None:
        """compiled_meta.json: what from_dir needs to run the folder again without the source."""
        meta = {
            "entry": self.entry,
            "platform": self.platform,
            "backend_type": self.backend_type.value,
            "param_names": list(self.param_names),
            "params": [p.__dict__ | {"shape": [str(d) for d in p.shape]} for p in self.params],
            "result_count": self.result_count,
            "check_nan": self.check_nan,
            "check_pipe_hazards": self.check_pipe_hazards,
            "backend": self.backend,
            "plugins": list(self.plugins),
            "kernel_include_dirs": self.kernel_include_dirs,
        }
        (self.output_dir / META_FILE).write_text(json.dumps(meta, indent=2) + "\n")

    @classmethod
    def from_dir(cls, output_dir: str | Path) -> CompiledProgram:
        """Rebuilds a compile output folder (kernels/ and orchestration/ as they are now, edits included)."""
        output_dir = Path(output_dir)
        meta_path = output_dir / META_FILE
        if not meta_path.is_file():
            raise FileNotFoundError(f"{meta_path} does not exist: pass a folder compile() wrote")
        meta = json.loads(meta_path.read_text())
        params = tuple(ProgramParam(p["name"], p["kind"], p["dtype"], tuple(p["shape"]), p["direction"])
                       for p in meta["params"])
        artifacts = codegen.read_artifacts(output_dir)
        backend = meta.get("backend", codegen.KERNEL_BACKEND)
        plugin_paths = tuple(meta.get("plugins", ()))
        for path in plugin_paths:  # the backend's manifest names the toolchain
            plugins.load_path(path)
        chain = codegen.toolchain(meta["platform"], backend)
        check_nan = bool(meta.get("check_nan", False))
        check_hazards = bool(meta.get("check_pipe_hazards", False))
        include_dirs = dict(meta.get("kernel_include_dirs", {}))
        executable = (codegen.build(chain, artifacts, meta["platform"], check_nan=check_nan,
                                    check_pipe_hazards=check_hazards, kernel_include_dirs=include_dirs)
                      if chain.can_run else None)
        return cls(None, output_dir, meta["platform"], BackendType(meta["backend_type"]), tuple(meta["param_names"]),
                   None, meta["entry"], params, meta["result_count"], tuple(artifacts), executable, chain.name,
                   chain.unavailable, check_nan=check_nan, check_pipe_hazards=check_hazards, backend=backend, plugins=plugin_paths,
                   kernel_include_dirs=include_dirs)


def scalar_bits(value: Any, dtype: str) -> int:
    """The 64-bit slot of a scalar: integers sign-extended, floats as the bits of their own width."""
    if dtype in _FLOAT_FORMATS:
        value_format, bits_format = _FLOAT_FORMATS[dtype]
        return struct.unpack(bits_format, struct.pack(value_format, float(value)))[0]
    if dtype == "BOOL":
        return int(bool(value))
    return int(value)


def program_params(function: ir.Function) -> tuple[ProgramParam, ...]:
    """The parameters of an orchestration function as the call binds them."""
    params = []
    for var, direction in zip(function.params, function.param_directions):
        t = var.type
        if isinstance(t, ir.TensorType):
            params.append(ProgramParam(var.name_hint, "tensor", t.dtype.name, tuple(t.shape), direction.name))
        else:
            params.append(ProgramParam(var.name_hint, "scalar", t.dtype.name))
    return tuple(params)


def _to_user_array(result: RuntimeTensor, args: Any) -> Any:
    """A fresh result as the kind of array the caller passed: torch if any argument was torch, else numpy."""
    if any(type(a).__module__.startswith("torch") for a in args):
        import torch

        return torch.from_dlpack(result)
    import numpy

    return numpy.from_dlpack(result)


def _save_debug_inputs(output_dir: Path, params: tuple[ProgramParam, ...], args: list[Any], slots: list[Any],
                       limit_bytes: int = 64 << 20) -> None:
    """Saves the first call's inputs under debug/inputs/ for debug/run.py, when they are small and numpy can hold
    them (bfloat16 cannot)."""
    import numpy

    arrays, total = {}, 0
    for param, arg, slot in zip(params, args, slots):
        if param.kind == "scalar":
            arrays[param.name] = numpy.asarray(arg)
            continue
        try:
            array = numpy.from_dlpack(slot)
        except (TypeError, BufferError, RuntimeError, ValueError):
            return
        total += array.nbytes
        if total > limit_bytes:
            return
        arrays[param.name] = array.copy()
    folder = output_dir / "debug" / "inputs"
    folder.mkdir(parents=True, exist_ok=True)
    numpy.savez(folder / "inputs.npz", **arrays)
