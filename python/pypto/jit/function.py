"""JITFunction: a decorated kernel that specializes on its arguments, caches, lowers and compiles.

One call, in order (the recipe of ``compile()``):

1. bind the arguments to the kernel's parameters and check them against the
   annotations (count, tensor or scalar, dtype, static dimensions);
2. build the specialization: an ``ir.TensorType`` per tensor parameter
   (``pl.dynamic`` dimensions as shared ``ir.Var``s), the scalar values, and
   the cache key;
3. on a miss: load the RunConfig's plugins and check its backend
   (``pypto.jit.selection``), parse (``pypto.language.parser.parse_jit``)
   into the program ``_jit_<name>``, run the RunConfig's pass pipeline for
   its platform,
   dumping into the output directory when asked, write the performance
   hints (``report/perf_hints.log``; a one-line summary on stderr when there
   are any), and cache the result;
4. generate code (``pypto.jit.codegen``): PTO-ISA kernels under ``kernels/``
   (the RunConfig's backend, by default NPU), orchestration LLVM IR under ``orchestration/`` (host
   backend), written to the output directory with ``compiled_meta.json`` and
   ``debug/run.py``; build them with the platform's toolchain (on the
   simulators: compiled in the process, cached on disk, linked into one JIT
   session); write the time of every step of 1-4
   (``report/compile_profile.{txt,json}``, ``pypto.jit.report``);
5. dispatch: bind the arguments without copies and run the orchestration on
   the runtime; ``pl.Out``/``pl.InOut`` arguments are written in place.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pypto
from pypto import ir, passes
from pypto.jit import arrays, codegen, debug_runner, report, selection
from pypto.jit.annotations import AnnotationReader, DynamicDim, ParamSpec
from pypto.language._types import TensorView as TensorViewSpec
from pypto.jit.cache import CacheInfo, ScalarKey, SpecializationCache, SpecializationKey, tensor_key
from pypto.jit.compiled import CompiledProgram, program_params
from pypto.jit.host_program import HOST_BACKEND, HOST_PIPELINE, HostProgram, load_source
from pypto.jit.errors import (
    ArgumentRef,
    CallSite,
    KernelArgumentError,
    KernelShapeError,
    find_call_site,
)
from pypto.jit.source import SourceInfo, external_source_text, namespace, read_source, referenced_constants, \
    source_hash
from pypto.runtime import distributed
from pypto.runtime.config import RunConfig, compile_option_names

KINDS = ("orchestration", "incore", "inline", "opaque", "host", "extern")

# Which decorated functions a kernel of each kind picks up when it calls them by
# name. A plain @pl.jit entry never pulls in another @pl.jit entry.
DISCOVERS = {
    "orchestration": {"incore", "inline", "opaque", "extern"},
    "host": {"orchestration", "incore", "inline", "opaque", "extern"},
    "opaque": {"incore", "inline", "opaque", "extern"},
    "incore": {"inline"},
    "inline": {"inline"},
    "extern": set(),
}

BUILD_DIR_ENV = "PYPTO_PROG_BUILD_DIR"
DEFAULT_BUILD_DIR = "build_output"
INDEX = ir.DataType.INDEX


@dataclass(frozen=True)
class Specialization:
    """Everything the parser needs to specialize a kernel, and the key it is cached under."""

    program_name: str
    param_types: dict[str, ir.Type]
    scalar_values: dict[str, Any]
    key: SpecializationKey


@dataclass
class _Bound:
    """Arguments bound to parameters, with which argument of the user's call each came from."""

    values: dict[str, Any]
    arguments: dict[str, ArgumentRef]


class JITFunction:
    """A kernel decorated with one of the @pl.jit decorators.

    Attributes: ``fn`` (the Python function), ``kind`` (one of KINDS),
    ``level`` (a pypto.ir.Level or None), ``external_source`` (a path or None),
    ``options`` (the decorator's keyword options).
    """

    def __init__(self, fn: Callable[..., Any], kind: str, *, level: Any = None,
                 external_source: str | None = None, options: dict[str, Any] | None = None) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown kernel kind {kind!r}; expected one of {', '.join(KINDS)}")
        for parameter in inspect.signature(fn).parameters.values():
            if parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                raise TypeError(f"{fn.__qualname__}: kernels take named parameters, not *{parameter.name} "
                                f"or **{parameter.name}")
        self.fn = fn
        self.kind = kind
        self.level = level
        self.external_source = external_source
        self.options = dict(options or {})
        self._cache: SpecializationCache[CompiledProgram] = SpecializationCache()
        self._host_cache: SpecializationCache[HostProgram] = SpecializationCache()
        self._dispatch: dict[tuple[Any, ...], CompiledProgram] = {}
        self._param_specs_memo: tuple[tuple[Any, ...], tuple[ParamSpec, ...]] | None = None
        functools.update_wrapper(self, fn)

    def __repr__(self) -> str:
        return f"<JITFunction {self.kind} {self.__qualname__}>"

    # ----------------------------------------------------------------- source

    @functools.cached_property
    def source(self) -> SourceInfo:
        """The kernel's source text and syntax tree."""
        return read_source(self.fn)

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(inspect.signature(self.fn).parameters)

    def param_specs(self) -> list[ParamSpec]:
        """What each parameter's annotation promises (tensor or scalar, shape, dtype, direction).

        Reading evaluates the dimensions and dtypes, so the result is reused
        while every name the annotations read is bound to the same object.
        """
        names = namespace(self.fn)
        reader = AnnotationReader(self.source, names, self.fn.__module__)
        values = tuple(names.get(name, _MISSING) for name in self.source.annotation_names)
        memo = self._param_specs_memo
        if memo is not None and len(memo[0]) == len(values) and all(a is b for a, b in zip(memo[0], values)):
            return list(memo[1])
        specs = reader.params()
        self._param_specs_memo = None if reader.followed_alias else (values, tuple(specs))
        return specs

    def dependencies(self) -> list[JITFunction]:
        """The decorated functions this kernel calls by name, transitively, in the order first met."""
        found: list[JITFunction] = []
        pending: list[JITFunction] = [self]
        while pending:
            caller = pending.pop(0)
            names = namespace(caller.fn)
            for name in caller.source.read_names:
                callee = names.get(name)
                if isinstance(callee, JITFunction) and callee is not self and callee not in found \
                        and callee.kind in DISCOVERS[caller.kind]:
                    found.append(callee)
                    pending.append(callee)
        return found

    def source_hash(self) -> str:
        """sha256 of this kernel's and its dependencies' sources, constants and external sources."""
        parts = []
        for function in [self, *self.dependencies()]:
            info = function.source
            constants = referenced_constants(info, namespace(function.fn))
            external = external_source_text(function.external_source, info)
            parts.append((f"{function.fn.__module__}.{function.__qualname__}", info, constants, external))
        return source_hash(parts)

    # --------------------------------------------------------- specialization

    def specialize(self, *args: Any, config: RunConfig | None = None, **kwargs: Any) -> Specialization:
        """The specialization (parameter types, scalar values, cache key) for these arguments."""
        return self._specialize(args, kwargs, _resolve_config(config, dump_passes=False), find_call_site(),
                                "specialize", samples_optional=True)

    def _specialize(self, args: tuple[Any, ...], kwargs: dict[str, Any], config: RunConfig,
                    site: CallSite | None, method: str, *, samples_optional: bool) -> Specialization:
        bound = self._bind(args, kwargs, site, method, samples_optional=samples_optional)
        builder = _SpecializationBuilder(self.__name__, site)
        for spec in self.param_specs():
            builder.add(spec, bound.values.get(spec.name, _MISSING), bound.arguments.get(spec.name), method)
        key = SpecializationKey(self.source_hash(), tuple(builder.tensor_keys), tuple(builder.scalar_keys),
                                config.compile_key())
        return Specialization(f"_jit_{self.__name__}", builder.param_types, builder.scalar_values, key)

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any], site: CallSite | None, method: str, *,
              samples_optional: bool) -> _Bound:
        signature = inspect.signature(self.fn)
        names = list(signature.parameters)
        listing = f"{self.__name__}({', '.join(names)})"
        for keyword in kwargs:
            if keyword not in signature.parameters:
                raise _keyword_error(keyword, listing, method, site)
        if len(args) > len(names):
            raise KernelArgumentError.at(
                f"{listing} takes {len(names)} argument{'s' if len(names) != 1 else ''} but {len(args)} were "
                f"given", site, ArgumentRef(index=len(names)))
        values: dict[str, Any] = {}
        arguments: dict[str, ArgumentRef] = {}
        for index, (name, value) in enumerate(zip(names, args)):
            values[name] = value
            arguments[name] = ArgumentRef(index=index)
        for keyword, value in kwargs.items():
            if keyword in values:
                raise KernelArgumentError.at(f"{listing} got two values for '{keyword}'", site,
                                             ArgumentRef(keyword=keyword))
            values[keyword] = value
            arguments[keyword] = ArgumentRef(keyword=keyword)
        for name, parameter in signature.parameters.items():
            if name not in values and parameter.default is not inspect.Parameter.empty:
                values[name] = parameter.default
        missing = [name for name in names if name not in values]
        if missing and not samples_optional:
            raise KernelArgumentError.at(
                f"{listing} is missing argument{'s' if len(missing) > 1 else ''} "
                f"{', '.join(repr(m) for m in missing)}: pass one tensor or scalar per parameter", site)
        return _Bound(values, arguments)

    # ---------------------------------------------------- lower, compile, call

    def lower(self, *args: Any, config: RunConfig | None = None, **kwargs: Any) -> ir.Program:
        """The program after the pass pipeline, for these arguments. Writes nothing, caches nothing."""
        config = _resolve_config(config, dump_passes=False)
        specialization = self._specialize(args, kwargs, config, find_call_site(), "lower", samples_optional=True)
        selection.prepare(config)
        program = self._parse(specialization)
        manager = passes.PassManager(HOST_PIPELINE) if self.kind == "host" else _pass_manager(config)
        return manager.run(program, platform=config.platform)

    def compile(self, *args: Any, config: RunConfig | None = None, **kwargs: Any) -> CompiledProgram | HostProgram:
        """Specialize, parse and lower (cached); no arguments are needed when every parameter is fully annotated.

        Without a config the passes are dumped (as ir.compile does); RunConfig() dumps only with dump_passes=True.
        A @pl.jit.host orchestrator compiles to a HostProgram: call it with the host tensors to run it.
        """
        if self.kind == "host":
            return self._host_program(args, kwargs, _resolve_config(config, dump_passes=False), find_call_site(),
                                      "compile")
        config = _resolve_config(config, dump_passes=True)
        return self._compiled(args, kwargs, config, find_call_site(), "compile", samples_optional=True)

    def __call__(self, *args: Any, config: RunConfig | None = None, **kwargs: Any) -> Any:
        if self.kind == "host":
            return self._run_host(args, kwargs, config)
        if "device" in kwargs and "device" not in self.param_names:
            raise KernelArgumentError.at(
                f"{self.__name__}(..., device=...): device= sends a chip program to one rank, which only a "
                "@pl.jit.host orchestrator does; call it from one (see docs/distributed.md) or drop device=",
                find_call_site(), ArgumentRef(keyword="device"))
        return self.call_local(args, kwargs, config)

    def call_local(self, args: tuple[Any, ...], kwargs: dict[str, Any], config: RunConfig | None,
                   site: CallSite | None = None) -> Any:
        """Compiles (cached) and runs on this process's simulated device; errors point at `site` (a host
        orchestrator's dispatch) or else at the caller."""
        config = _DEFAULT_CALL_CONFIG.get() if config is None else config
        # The hot path: positional arguments of shapes, dtypes, strides and
        # scalar values seen before run the program compiled for them.
        dispatch_key = None if kwargs else _dispatch_key(args, config)
        if dispatch_key is not None:
            compiled = self._dispatch.get(dispatch_key)
            if compiled is not None:
                self._cache.hits += 1
                return compiled.run_positional(args, config)
        config = _resolve_config(config, dump_passes=True)
        site = site or find_call_site()
        compiled = self._compiled(args, kwargs, config, site, "call", samples_optional=False)
        if dispatch_key is not None:
            self._dispatch[dispatch_key] = compiled
        # Scalars the program was specialized on are constants in it, not arguments.
        values = self._bind(args, kwargs, site, "call", samples_optional=False).values
        return compiled.run_bound({p.name: values[p.name] for p in compiled.params}, config)

    def _run_host(self, args: tuple[Any, ...], kwargs: dict[str, Any], config: RunConfig | None) -> Any:
        """A @pl.jit.host orchestrator: compiled (cached), then run SPMD on every rank (pypto.runtime.host_run)."""
        config = _resolve_config(config, dump_passes=False)
        host = self._host_program(args, kwargs, config, find_call_site(), "call")
        return host(*args, **kwargs)

    def _host_program(self, args: tuple[Any, ...], kwargs: dict[str, Any], config: RunConfig,
                      site: CallSite | None, method: str) -> HostProgram:
        dist = config.distributed_config
        if dist is not None and not isinstance(dist, distributed.DistributedConfig):
            raise KernelArgumentError.at(
                f"{self.__name__}(): RunConfig(distributed_config=...) takes a "
                f"pypto.runtime.DistributedConfig, got {type(dist).__name__}", site)
        specialization = self._specialize(args, kwargs, config, site, method, samples_optional=method != "call")
        cached = self._host_cache.lookup(specialization.key)
        if cached is not None:
            return cached
        selection.prepare(config)
        lowered = passes.PassManager(HOST_PIPELINE).run(self._parse(specialization), platform=config.platform)
        artifacts = codegen.generate(HOST_BACKEND, lowered, config.platform)
        source = artifacts[0].text
        programs = {f.__name__: f for f in self.dependencies() if f.kind == "orchestration"}
        host = HostProgram(self.__name__, lowered, source, self.param_names, programs, config,
                           load_source(self.__name__, source))
        self._host_cache.store(specialization.key, host)
        return host

    def _compiled(self, args: tuple[Any, ...], kwargs: dict[str, Any], config: RunConfig, site: CallSite | None,
                  method: str, *, samples_optional: bool) -> CompiledProgram:
        profile = report.CompileProfile()  # kept only on a miss: a hit compiles nothing and writes no report
        with profile.time("frontend", "specialize"):
            specialization = self._specialize(args, kwargs, config, site, method, samples_optional=samples_optional)
        cached = self._cache.lookup(specialization.key)
        if cached is not None:
            return cached
        compiled = self._build(specialization, config, profile)
        self._cache.store(specialization.key, compiled)
        return compiled

    def _build(self, specialization: Specialization, config: RunConfig,
               profile: report.CompileProfile | None = None) -> CompiledProgram:
        profile = profile if profile is not None else report.CompileProfile()
        with profile.time("setup", "load plugins"):
            selection.prepare(config)
        with profile.time("frontend", "parse"):
            program = self._parse(specialization)
        with profile.time("setup", "output directory"):
            output_dir = make_output_dir(config, specialization.program_name)
        return build_program(program, config, output_dir,
                             lambda lowered: _entry_function(lowered, self.fn.__name__),
                             param_names=self.param_names, key=specialization.key, profile=profile)

    def _parse(self, specialization: Specialization) -> ir.Program:
        # Looked up at call time: pypto.language imports this module for `pl.jit`.
        parser = importlib.import_module("pypto.language.parser")
        return parser.parse_jit(self, param_types=specialization.param_types,
                                scalar_values=specialization.scalar_values,
                                program_name=specialization.program_name)

    # ------------------------------------------------------------------ cache

    def cache_info(self) -> CacheInfo:
        """Hits, misses and entries of this kernel's cache of compiled programs."""
        return self._cache.info()

    def clear_cache(self) -> None:
        """Forget every compiled program of this kernel and reset the counters."""
        self._cache.clear()
        self._dispatch.clear()


_MISSING = object()


class _SpecializationBuilder:
    """Checks each argument against its parameter's annotation and records its type and key."""

    def __init__(self, kernel_name: str, site: CallSite | None) -> None:
        self._kernel = kernel_name
        self._site = site
        self._dynamic_vars: dict[str, ir.Var] = {}
        self._dynamic_sizes: dict[str, tuple[int, str]] = {}
        self.param_types: dict[str, ir.Type] = {}
        self.scalar_values: dict[str, Any] = {}
        self.tensor_keys: list[Any] = []
        self.scalar_keys: list[ScalarKey] = []

    def _type_error(self, message: str, argument: ArgumentRef | None) -> KernelArgumentError:
        return KernelArgumentError.at(f"{self._kernel}(): {message}", self._site, argument)

    def _shape_error(self, message: str, argument: ArgumentRef | None) -> KernelShapeError:
        return KernelShapeError.at(f"{self._kernel}(): {message}", self._site, argument)

    def add(self, spec: ParamSpec, value: Any, argument: ArgumentRef | None, method: str) -> None:
        if value is _MISSING:
            self._add_from_annotation(spec, method)
        elif arrays.is_tensor(value):
            self._add_tensor(spec, value, argument)
        elif arrays.is_scalar(value):
            self._add_scalar(spec, value, argument)
        else:
            raise self._type_error(
                f"parameter '{spec.name}' got a {type(value).__module__}.{type(value).__qualname__}; "
                "pass a torch tensor, a numpy array or a Python number", argument)

    def _add_from_annotation(self, spec: ParamSpec, method: str) -> None:
        if not spec.fully_annotated:
            what = "a scalar value" if spec.kind == "scalar" else "a sample tensor"
            reason = {
                "tensor": f"its annotation {spec.text} gives no shape and dtype",
                "scalar": "scalars are specialization constants",
                "unannotated": "it has no annotation",
            }.get(spec.kind, f"its annotation {spec.text} is neither a tensor nor a scalar")
            raise self._type_error(f"{method}() needs {what} for parameter '{spec.name}': {reason}; "
                                   f"pass it as an argument", None)
        dims, dtype = spec.shape, spec.dtype
        assert dims is not None and dtype is not None  # what fully_annotated means
        tensor_type = self._tensor_type([self._ir_dim(dim) for dim in dims], dtype, spec.layout)
        self.param_types[spec.name] = _as_window(tensor_type) if spec.window else tensor_type
        key_shape = tuple(None if isinstance(dim, DynamicDim) else dim for dim in dims)
        self.tensor_keys.append(tensor_key(spec.name, key_shape, dtype, spec.layout, spec.window))

    def _add_tensor(self, spec: ParamSpec, value: Any, argument: ArgumentRef | None) -> None:
        if spec.kind == "scalar":
            raise self._type_error(f"parameter '{spec.name}' is annotated {spec.text} (a scalar) but got a "
                                   f"{type(value).__module__.split('.')[0]} tensor", argument)
        try:
            tensor = arrays.tensor_arg(value)
        except arrays.UnsupportedArgument as exc:
            raise self._type_error(f"parameter '{spec.name}': {exc}", argument) from None
        if spec.dtype is not None and tensor.dtype != spec.dtype:
            raise self._type_error(
                f"parameter '{spec.name}' expects dtype {spec.dtype.name} ({spec.text}) but got a "
                f"{tensor.library} tensor of dtype {tensor.dtype.name}; convert the argument or change the "
                "annotation", argument)
        dims = spec.shape if spec.shape is not None else tuple(tensor.shape)
        if len(dims) != len(tensor.shape):
            raise self._shape_error(
                f"parameter '{spec.name}' expects a rank-{len(dims)} tensor ({spec.text}) but got shape "
                f"{list(tensor.shape)}", argument)
        shape: list[Any] = []
        for axis, (dim, size) in enumerate(zip(dims, tensor.shape)):
            if isinstance(dim, DynamicDim):
                self._bind_dynamic(dim.name, size, spec.name, axis, argument)
                shape.append(self._ir_dim(dim))
            elif dim != size:
                raise self._shape_error(
                    f"parameter '{spec.name}' expects shape [{', '.join(str(d) for d in dims)}] ({spec.text}) but got "
                    f"shape {list(tensor.shape)}: dimension {axis} is {size}, not {dim}", argument)
            else:
                shape.append(size)
        window = _is_window(value)
        if spec.window and not window:
            raise self._type_error(f"parameter '{spec.name}' is a window ({spec.text}) but got a plain tensor: peers "
                                   "reach only window memory; pass a pld.window(...) view", argument)
        tensor_type = self._tensor_type(shape, tensor.dtype, spec.layout)
        self.param_types[spec.name] = _as_window(tensor_type) if window else tensor_type
        key_shape = tuple(None if isinstance(d, DynamicDim) else s for d, s in zip(dims, tensor.shape))
        self.tensor_keys.append(tensor_key(spec.name, key_shape, tensor.dtype, spec.layout, window))

    def _bind_dynamic(self, name: str, size: int, param: str, axis: int, argument: ArgumentRef | None) -> None:
        seen = self._dynamic_sizes.setdefault(name, (size, f"'{param}' dimension {axis}"))
        if seen[0] != size:
            raise self._shape_error(
                f"dynamic dimension '{name}' is {seen[0]} in {seen[1]} but {size} in '{param}' dimension "
                f"{axis}; one pl.dynamic name is one size per call", argument)

    def _tensor_type(self, shape: list[Any], dtype: ir.DataType, layout: Any) -> ir.TensorType:
        """The parameter's type: its layout, or the window a pl.TensorView annotation describes."""
        if isinstance(layout, ir.TensorLayout):
            return ir.TensorType(shape, dtype, layout)
        if isinstance(layout, TensorViewSpec):
            view = ir.TensorView(self._view_dims(layout.stride), self._view_dims(layout.valid_shape),
                                 layout.pad if layout.pad is not None else ir.PadValue.null)
            return ir.TensorType(shape, dtype, layout.layout or ir.TensorLayout.ND, view)
        return ir.TensorType(shape, dtype)

    def _view_dims(self, dims: list[Any] | None) -> list[Any]:
        """A pl.TensorView's extents: ints, or pl.dynamic dimensions as the parameter shapes name them."""
        return [d if isinstance(d, int) else self._ir_dim(DynamicDim(d.name, d.var)) for d in dims or []]

    def _ir_dim(self, dim: int | DynamicDim) -> Any:
        if isinstance(dim, int):
            return dim
        if dim.name not in self._dynamic_vars:
            self._dynamic_vars[dim.name] = dim.var if dim.var is not None else ir.Var(dim.name, ir.ScalarType(INDEX))
        return self._dynamic_vars[dim.name]

    def _add_scalar(self, spec: ParamSpec, value: Any, argument: ArgumentRef | None) -> None:
        if spec.kind == "tensor":
            raise self._type_error(f"parameter '{spec.name}' is annotated {spec.text} (a tensor) but got the "
                                   f"{type(value).__name__} {value!r}", argument)
        scalar = arrays.scalar_value(value)
        if spec.dtype is not None:
            self._check_scalar_dtype(spec, spec.dtype, scalar, argument)
        self.scalar_values[spec.name] = scalar
        self.scalar_keys.append(ScalarKey(spec.name, type(scalar).__name__, scalar))

    def _check_scalar_dtype(self, spec: ParamSpec, dtype: ir.DataType, scalar: Any,
                            argument: ArgumentRef | None) -> None:
        """A BOOL scalar takes a bool, an integer scalar takes no float; any number fits a float scalar."""
        if dtype.is_bool():
            fits = isinstance(scalar, bool)
        elif dtype.is_int() or dtype == INDEX:
            fits = not isinstance(scalar, float)
        else:
            fits = True
        if not fits:
            raise self._type_error(f"parameter '{spec.name}' expects a {dtype.name} scalar ({spec.text}) "
                                   f"but got the {type(scalar).__name__} {scalar!r}", argument)


def build_program(program: ir.Program, config: RunConfig, output_dir: Path,
                  entry_of: Callable[[ir.Program], ir.Function], *, param_names: tuple[str, ...] | None = None,
                  key: SpecializationKey | None = None, profile: report.CompileProfile) -> CompiledProgram:
    """Steps 3 (after parsing) and 4 of a compile, shared by kernels and ir.compile: lower with the report,
    generate and write the code, build it, and describe the result; ``profile`` (started by the caller) times
    each step and ends as report/compile_profile. ``entry_of`` picks the function a call runs from the lowered
    program; ``param_names`` are the call's parameters (default: the entry's)."""
    lowered, hints = _lower_with_report(program, output_dir, config, profile)
    artifacts = _generate(lowered, config, profile)
    with profile.time("codegen", codegen.TORCH_BACKEND) as made:
        script = codegen.debug_artifacts(lowered, config.platform)
        made["artifacts"] = [a.path for a in script]
    with profile.time("write", "generated files"):
        codegen.write(output_dir, artifacts + script)
    chain = codegen.toolchain(config.platform, config.backend)
    include_dirs = codegen.kernel_include_dirs(lowered)
    executable = _build_executable(chain, artifacts, config, include_dirs, profile)
    entry = entry_of(lowered)
    compiled = CompiledProgram(lowered, output_dir, config.platform, config.backend_type,
                               param_names or tuple(p.name_hint for p in entry.params), key, entry.name,
                               program_params(entry), len(entry.return_types), tuple(artifacts), executable,
                               chain.name, chain.unavailable, tuple(hints), check_nan=config.check_nan,
                               check_pipe_hazards=config.check_pipe_hazards, backend=config.backend, plugins=tuple(os.path.abspath(p) for p in config.plugins),
                               kernel_include_dirs=include_dirs)
    with profile.time("write", "compiled_meta.json, debug/run.py"):
        compiled.write_meta()
        debug_runner.write(output_dir)
    profile.finish()
    report.write_compile_profile(output_dir, profile)
    return compiled


def _generate(lowered: ir.Program, config: RunConfig, profile: report.CompileProfile) -> list[codegen.Artifact]:
    """Kernel sources and orchestration IR, one profile row per backend listing the files it generated."""
    artifacts = []
    for backend in codegen.code_backends(config.backend):
        with profile.time("codegen", backend) as made:
            generated = codegen.generate(backend, lowered, config.platform)
            made["artifacts"] = [a.path for a in generated]
        artifacts += generated
    return artifacts


def _build_executable(chain: codegen.Toolchain, artifacts: list[codegen.Artifact], config: RunConfig,
                      include_dirs: dict[str, list[str]], profile: report.CompileProfile) -> codegen.Executable | None:
    """The built program where the toolchain runs here, else None. Its profile row counts the kernel objects and
    those read from the on-disk object cache, so that a cached build is told from a fast one."""
    if not chain.can_run:
        profile.add("toolchain", chain.name, 0.0, ran=False, why=chain.unavailable)
        return None
    with profile.time("toolchain", chain.name) as found:
        executable = codegen.build(chain, artifacts, config.platform, check_nan=config.check_nan,
                                   check_pipe_hazards=config.check_pipe_hazards, kernel_include_dirs=include_dirs)
        stats = executable.build_stats
        found.update(kernels=stats.kernels, from_cache=stats.from_cache,
                     cached=stats.kernels > 0 and stats.from_cache == stats.kernels)
    return executable


def _keyword_error(keyword: str, listing: str, method: str, site: CallSite | None) -> KernelArgumentError:
    argument = ArgumentRef(keyword=keyword)
    target = "kernel" if method == "call" else f"kernel.{method}"
    if keyword in compile_option_names():
        fields = {f.name for f in dataclasses.fields(RunConfig) if f.init}
        how = (f"write {target}(..., config=RunConfig({keyword}=...))" if keyword in fields else
               f"RunConfig has no '{keyword}' option (see docs/jit.md for its fields)")
        return KernelArgumentError.at(
            f"compile options go through RunConfig: '{keyword}' is not a parameter of {listing}; {how}",
            site, argument)
    return KernelArgumentError.at(f"{listing} got an unexpected keyword argument '{keyword}'", site, argument)


def _lower_with_report(program: ir.Program, output_dir: Path, config: RunConfig,
                       profile: report.CompileProfile) -> tuple[ir.Program, list[Any]]:
    """Runs the pipeline (dumping when asked), timing every pass, and writes report/perf_hints.log."""
    with profile.time("setup", "load pipeline"):
        manager = _pass_manager(config)
    diagnostics, timing = passes.DiagnosticsInstrument(), passes.TimingInstrument()
    with profile.time_passes(timing):
        lowered = manager.run(program, dump_dir=str(output_dir) if config.dump_passes else None,
                              platform=config.platform, instruments=[diagnostics, timing])
    with profile.time("write", report.PERF_HINTS_LOG):
        hints = report.write_perf_report(output_dir, diagnostics, disabled=config.disabled_diagnostics)
    return lowered, hints


def _entry_function(program: ir.Program, name: str) -> ir.Function:
    """The function a call runs: the kernel's own orchestration function, else the program's only one, else
    (an incore entry compiled on its own) the kernel itself, which the host backend gives a launcher."""
    orchestrations = [f for f in program.functions if f.func_type == ir.FunctionType.Orchestration]
    for function in orchestrations:
        if function.name == name:
            return function
    if len(orchestrations) == 1:
        return orchestrations[0]
    kernel = program.get_function(name) if not orchestrations else None
    if kernel is not None:
        return kernel
    names = ", ".join(f.name for f in orchestrations) or "none"
    raise pypto.InternalError(f"the lowered program has no orchestration function '{name}' (it has: {names})")


def _pass_manager(config: RunConfig) -> passes.PassManager:
    """The config's pipeline, with the pass options RunConfig fields stand for."""
    names = {step["pass"] for step in passes.load_pipeline(config.pipeline)["passes"]}
    options = {}
    if "AutoDeriveTaskDependencies" in names:
        options["AutoDeriveTaskDependencies"] = {"analyze_auto_scopes_for_deps": config.analyze_auto_scopes_for_deps}
    return passes.PassManager(config.pipeline, options=options)


class _DefaultCallConfig:
    """The config of a call without one (ir.compile's defaults: passes dumped), made once."""

    def __init__(self) -> None:
        self._config: RunConfig | None = None

    def get(self) -> RunConfig:
        if self._config is None:
            self._config = RunConfig(dump_passes=True)
        return self._config


_DEFAULT_CALL_CONFIG = _DefaultCallConfig()


def _as_window(tensor_type: ir.TensorType) -> ir.DistributedTensorType:
    return ir.DistributedTensorType(tensor_type.shape, tensor_type.dtype, tensor_type.layout, tensor_type.view)


def _is_window(value: Any) -> bool:
    """A pld.window(...) view (checked by name: torch is imported only by programs that use it)."""
    kind = type(value)
    return kind.__name__ == "DistributedTensor" and kind.__module__ == "pypto.runtime.windows"


def _dispatch_key(args: tuple[Any, ...], config: Any) -> tuple[Any, ...] | None:
    """What a call's compiled program depends on, cheaply: per argument its type and, for arrays, shape,
    dtype and strides, for scalars the value; then the config's compile options. None when an argument
    is of a kind only the full specialization understands."""
    if not isinstance(config, RunConfig):
        return None
    parts: list[Any] = []
    for arg in args:
        kind = type(arg)
        family = _ARG_FAMILIES.get(kind)
        if family is None:
            family = _ARG_FAMILIES[kind] = _arg_family(arg)
        if family == "scalar":
            parts.append((kind, arg))
        elif family == "torch":
            parts.append((kind, arg.shape, arg.dtype, arg.stride()))
        elif family == "numpy":
            parts.append((kind, arg.shape, arg.dtype, arg.strides))
        else:
            return None
    return tuple(parts), config.compile_key()


# Argument type -> how _dispatch_key reads it ("scalar", "torch", "numpy" or "other"), learnt once per type.
_ARG_FAMILIES: dict[type, str] = {}


def _arg_family(arg: Any) -> str:
    if type(arg) in (int, float, bool):
        return "scalar"
    if arrays.is_torch_tensor(arg):
        return "torch"
    if arrays.is_numpy_array(arg):
        return "numpy"
    return "other"


def _resolve_config(config: Any, *, dump_passes: bool) -> RunConfig:
    """A missing config means ir.compile's defaults, which dump the passes when compiling."""
    if config is None:
        return RunConfig(dump_passes=dump_passes)
    if not isinstance(config, RunConfig):
        raise TypeError(f"config must be a pypto.runtime.RunConfig, got {type(config).__name__}")
    return config


def make_output_dir(config: RunConfig, program_name: str) -> Path:
    """save_kernels_dir, or <$PYPTO_PROG_BUILD_DIR or build_output>/<program>_<YYYYmmdd_HHMMSS>[_N]."""
    if config.save_kernels_dir is not None:
        path = Path(config.save_kernels_dir)
        path.mkdir(parents=True, exist_ok=True)
        return path
    root = Path(os.environ.get(BUILD_DIR_ENV) or DEFAULT_BUILD_DIR)
    root.mkdir(parents=True, exist_ok=True)
    stem = f"{program_name}_{time.strftime('%Y%m%d_%H%M%S')}"
    for attempt in range(1, 1000):
        path = root / (stem if attempt == 1 else f"{stem}_{attempt}")
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue
    raise FileExistsError(f"cannot create a fresh output directory under {root} for {stem}")
