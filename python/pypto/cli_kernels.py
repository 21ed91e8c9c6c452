"""``pypto compile`` and ``pypto run``: a @pl.jit kernel named ``FILE.py::FUNC``, from the command line.

The kernel's parameter annotations stand in for arguments. ``pypto compile``
compiles it without running (every tensor parameter needs its shape and dtype
in its annotation; ``pl.dynamic`` dimensions stay dynamic). ``pypto run``
gives each parameter an input: from ``--inputs F.npz`` when the file has it,
else random values of the annotated shape and dtype (zeros for ``pl.Out``),
runs the kernel on the platform, prints one line per output and saves the
outputs to ``--save F.npz``.

A mistake on the command line (a missing file, no such function, not a
kernel, a shape the annotation does not fix) is a :class:`CommandError`: one
line, exit status 2.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import sys
import traceback
from pathlib import Path
from typing import Any

from pypto.jit.annotations import DynamicDim, ParamSpec, call_outputs
from pypto.jit.arrays import TORCH_DTYPES
from pypto.jit.function import JITFunction
from pypto.runtime.config import RunConfig

# Random inputs: floats uniform in [-1, 1), integers in [-8, 8) ([0, 8) unsigned), so sums and products stay small.
INT_RANGE = 8


class CommandError(Exception):
    """A mistake on the command line, reported as one line with exit status 2."""


# ------------------------------------------------------------------ the kernel


def load_kernel(target: str) -> JITFunction:
    """The kernel `FILE.py::FUNC` names (`FILE.py` alone: the file's only kernel)."""
    file, separator, name = target.rpartition("::")
    if not separator:
        file, name = target, ""
    path = Path(file)
    if not path.is_file():
        raise CommandError(f"{file} does not exist; name a kernel as FILE.py::FUNC, e.g. kernels.py::add")
    module = _import(path)
    kernels = sorted(n for n, v in vars(module).items() if isinstance(v, JITFunction))
    if not name:
        if len(kernels) != 1:
            found = f"its kernels are {', '.join(kernels)}" if kernels else "it defines no @pl.jit kernel"
            raise CommandError(f"{file}: name the kernel as {file}::FUNC; {found}")
        name = kernels[0]
    value = getattr(module, name, None)
    if value is None:
        found = f"its @pl.jit kernels are {', '.join(kernels)}" if kernels else "it defines no @pl.jit kernel"
        raise CommandError(f"{file} has no '{name}'; {found}")
    if not isinstance(value, JITFunction):
        what = "a function" if callable(value) else f"a {type(value).__name__}"
        raise CommandError(f"{file}::{name} is {what}, not a @pl.jit kernel; decorate it with @pl.jit")
    return value


def _import(path: Path) -> Any:
    """Runs the file as a module (not as __main__), with its folder first on sys.path for its own imports."""
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    # A private module name: a file called torch.py must not replace torch.
    module_name = f"_pypto_cli_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise CommandError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # the JIT reads module-level annotation aliases through it
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - whatever the file raises is reported as one line
        raise CommandError(f"cannot import {path}: {_where(exc, path)}{type(exc).__name__}: {exc}") from None
    return module


def _where(exc: Exception, path: Path) -> str:
    """`FILE:LINE: ` of the innermost frame in the user's file, where the error happened."""
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f"{path}:{exc.lineno}: "
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).resolve() == path.resolve()]
    return f"{path}:{frames[-1].lineno}: " if frames else ""


def run_config(args: argparse.Namespace) -> RunConfig:
    try:
        return RunConfig(platform=args.platform, pipeline=args.pipeline, backend=args.backend,
                         plugins=list(args.plugin), save_kernels_dir=args.out, dump_passes=args.dump_passes)
    except (TypeError, ValueError) as exc:
        raise CommandError(str(exc)) from None


def _check_fully_annotated(kernel: JITFunction, specs: list[ParamSpec]) -> None:
    for spec in specs:
        if spec.kind == "tensor" and not spec.fully_annotated:
            raise CommandError(f"{kernel.__name__}: parameter '{spec.name}' is annotated {spec.text}, without a "
                               "shape and dtype; annotate it as pl.Tensor[[rows, cols], pl.FP32] to compile it "
                               "from the command line")
        if spec.kind in ("unannotated", "other"):
            raise CommandError(f"{kernel.__name__}: parameter '{spec.name}' "
                               f"{'has no annotation' if spec.kind == 'unannotated' else 'is a ' + spec.text}; "
                               "the command line takes kernels whose parameters are pl.Tensor[[...], dtype] "
                               "or pl.Scalar[dtype]")


# -------------------------------------------------------------------- compile


def compile_command(args: argparse.Namespace) -> int:
    kernel = load_kernel(args.target)
    config = run_config(args)
    specs = kernel.param_specs()
    _check_fully_annotated(kernel, specs)
    scalars = {s.name: _scalar_default(kernel, s) for s in specs if s.kind == "scalar"}
    compiled = kernel.compile(config=config, **scalars)
    kernels, orchestrations = len(compiled.kernel_files), len(compiled.orchestration_files)
    print(f"{kernel.__name__}: compiled for {config.platform} (pipeline {config.pipeline}, backend "
          f"{config.backend}) into {compiled.output_dir.resolve()}: {kernels} kernel file"
          f"{'s' if kernels != 1 else ''}, {orchestrations} orchestration file{'s' if orchestrations != 1 else ''}")
    return 0


def _scalar_default(kernel: JITFunction, spec: ParamSpec) -> Any:
    """A scalar is compiled in as a constant, so compiling needs its value: the parameter's default."""
    default = inspect.signature(kernel.fn).parameters[spec.name].default
    if default is inspect.Parameter.empty:
        raise CommandError(f"{kernel.__name__}: scalar parameter '{spec.name}' ({spec.text}) is compiled in as a "
                           "constant and has no default; give it a default value in the kernel, or use "
                           f"`pypto run ... --inputs F.npz` with a 0-d array '{spec.name}'")
    return default


# ------------------------------------------------------------------------ run


def run_command(args: argparse.Namespace) -> int:
    import torch

    kernel = load_kernel(args.target)
    config = run_config(args)
    specs = kernel.param_specs()
    _check_fully_annotated(kernel, specs)
    given = _read_inputs(args.inputs, kernel, specs) if args.inputs else {}
    generator = torch.Generator().manual_seed(args.seed)
    values = {s.name: given[s.name] if s.name in given else _made_input(kernel, s, generator)
              for s in specs if s.name in given or s.kind == "tensor"}
    values |= {s.name: _scalar_default(kernel, s) for s in specs if s.kind == "scalar" and s.name not in values}
    result = kernel(config=config, **values)
    outputs = call_outputs(specs, values, result)
    for name, tensor in outputs.items():
        print(summary(name, tensor))
    if args.save:
        _save(args.save, outputs)
        print(f"saved {', '.join(outputs)} to {Path(args.save).resolve()}")
    return 0


def _made_input(kernel: JITFunction, spec: ParamSpec, generator: Any) -> Any:
    """Zeros for a pl.Out parameter, random values of the annotated shape and dtype for the others."""
    import torch

    dynamic = [str(d) for d in spec.shape or () if isinstance(d, DynamicDim)]
    if dynamic:
        raise CommandError(f"{kernel.__name__}: parameter '{spec.name}' ({spec.text}) has the dynamic dimension"
                           f"{'s' if len(dynamic) > 1 else ''} {', '.join(dynamic)}, so random inputs have no "
                           f"shape; give '{spec.name}' in --inputs F.npz")
    dtype = _torch_dtype(kernel, spec)
    shape = tuple(spec.shape or ())
    if spec.direction == "Out":
        return torch.zeros(shape, dtype=dtype)
    if spec.dtype.is_float():
        return (torch.rand(shape, generator=generator) * 2 - 1).to(dtype)
    if spec.dtype.is_bool():
        return torch.randint(0, 2, shape, generator=generator).to(dtype)
    low = 0 if spec.dtype.is_unsigned_int() else -INT_RANGE
    return torch.randint(low, INT_RANGE, shape, generator=generator).to(dtype)


def _torch_dtype(kernel: JITFunction, spec: ParamSpec) -> Any:
    import torch

    names = [n for n, d in TORCH_DTYPES.items() if d == spec.dtype and hasattr(torch, n)]
    if not names or spec.dtype.name == "FP4":  # torch packs FP4 two to an element
        raise CommandError(f"{kernel.__name__}: parameter '{spec.name}' has dtype {spec.dtype.name}, which "
                           f"random inputs do not cover; give '{spec.name}' in --inputs F.npz")
    return getattr(torch, names[0])


def _read_inputs(path: str, kernel: JITFunction, specs: list[ParamSpec]) -> dict[str, Any]:
    """The arrays of an .npz file, by parameter name: tensors converted to the annotated dtype, 0-d arrays of
    scalar parameters as numbers."""
    import numpy as np
    import torch

    if not Path(path).is_file():
        raise CommandError(f"--inputs {path} does not exist")
    by_name = {s.name: s for s in specs}
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    values: dict[str, Any] = {}
    for name, array in arrays.items():
        spec = by_name.get(name)
        if spec is None:
            raise CommandError(f"--inputs {path} holds '{name}', which is not a parameter of "
                               f"{kernel.__name__}({', '.join(by_name)})")
        if spec.kind == "scalar":
            if array.ndim != 0:
                raise CommandError(f"--inputs {path}: '{name}' is a scalar parameter ({spec.text}) but the file holds "
                                   f"an array of shape {list(array.shape)}; save it as a 0-d array")
            values[name] = array.item()
            continue
        _check_shape(path, spec, array.shape)
        values[name] = torch.from_numpy(np.ascontiguousarray(array)).to(_torch_dtype(kernel, spec))
    return values


def _check_shape(path: str, spec: ParamSpec, shape: tuple[int, ...]) -> None:
    dims = spec.shape or ()
    fits = len(dims) == len(shape) and all(isinstance(d, DynamicDim) or d == s for d, s in zip(dims, shape))
    if not fits:
        raise CommandError(f"--inputs {path}: '{spec.name}' has shape {list(shape)} but the parameter is "
                           f"{spec.text}")


def summary(name: str, tensor: Any) -> str:
    """`name: dtype [shape] min .. max .. mean ..`, with the count of NaN and infinite elements when there are any."""
    import torch

    tensor = torch.as_tensor(tensor)
    dtype = str(tensor.dtype).removeprefix("torch.")
    shape = f"[{', '.join(str(d) for d in tensor.shape)}]"
    if tensor.numel() == 0:
        return f"{name}: {dtype} {shape} (empty)"
    values = tensor.to(torch.float64)
    finite = values[torch.isfinite(values)]
    line = f"{name}: {dtype} {shape}"
    if finite.numel():
        line += f" min {finite.min().item():.6g} max {finite.max().item():.6g} mean {finite.mean().item():.6g}"
    not_finite = values.numel() - finite.numel()
    if not_finite:
        line += f" ({int(torch.isnan(values).sum())} NaN, {not_finite - int(torch.isnan(values).sum())} inf)"
    return line


def _save(path: str, outputs: dict[str, Any]) -> None:
    """numpy has no bfloat16 or float8, so those are saved as float32."""
    import numpy as np
    import torch

    arrays = {}
    for name, tensor in outputs.items():
        tensor = torch.as_tensor(tensor)
        if tensor.dtype == torch.bfloat16 or "float8" in str(tensor.dtype):
            tensor = tensor.to(torch.float32)
        arrays[name] = tensor.numpy()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as file:  # np.savez(path) would add ".npz" to a name without it
        np.savez(file, **arrays)
