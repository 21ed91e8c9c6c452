"""Debugging aids for compiled programs: the torch codegen.

:func:`torch_codegen` turns a program, at any point of the pipeline, into one
standalone PyTorch script that computes what the program computes: each IR
function a Python function, each IR op one line (commented with the op and
your source line), and a ``main()`` that runs the entry on inputs from an
``.npz`` or on random ones. Run it beside the simulator to find where the
numbers go wrong (docs/torch-codegen.md). The script comes from the ``torch``
backend plugin (plugins/backends/torch); ``compile()`` also writes it to
``debug/<program>_torch.py`` in the output folder.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from pypto import ir
from pypto._core import backend as _backend

TORCH_BACKEND = "torch"

__all__ = ["TORCH_BACKEND", "torch_codegen", "torch_script_artifact", "load_torch_script"]


def torch_script_artifact(program: ir.Program, platform: str = "a2a3sim") -> Any:
    """The torch backend's artifact for `program`: ``debug/<program>_torch.py`` and its text.

    A construct the script cannot model is a ``pypto.CodegenError`` naming the op and the source line.
    """
    (artifact,) = _backend.generate(TORCH_BACKEND, program, platform)
    return artifact


def torch_codegen(program_or_compiled: Any) -> str:
    """The PyTorch script of an ``ir.Program`` or of a ``CompiledProgram`` (its lowered program)."""
    program = getattr(program_or_compiled, "program", program_or_compiled)
    if not isinstance(program, ir.Program):
        raise TypeError(f"torch_codegen takes an ir.Program or a CompiledProgram, got {type(program_or_compiled).__name__}")
    return torch_script_artifact(program).text


def load_torch_script(text: str, name: str = "pypto_torch_script") -> types.ModuleType:
    """Imports a torch script as the module `name` (its definitions; main() does not run).

    ``module.ENTRY(*args)`` then runs the program's entry on torch tensors, writing Out arguments in place.
    """
    module = types.ModuleType(name)
    sys.modules[name] = module  # dataclasses look their module up while the script defines them
    exec(compile(text, f"<{name}>", "exec"), module.__dict__)
    return module

from pypto.debug.bisect import BisectReport, Divergence, bisect  # noqa: E402 - it uses the functions above

__all__ += ["bisect", "BisectReport", "Divergence"]
