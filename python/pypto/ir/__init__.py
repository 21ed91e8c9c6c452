"""The PyPTO IR: node classes, printing, structural equality, serialization and verification.

Nodes are immutable. Each class takes its fields positionally in declaration
order (``cls.field_names``) or by keyword, plus ``span=``; ``==`` on nodes is
identity, ``structural_equal`` compares structure.
"""

from pypto._core.ir import *  # noqa: F401,F403  (the node classes and IR functions)
from pypto._core.ir import (
    DataType,
    as_python,
    assert_structural_equal,
    deserialize,
    load,
    save,
    serialize,
    structural_equal,
    structural_hash,
    verify,
    verify_or_raise,
)

# The pass manager and pipelines, also reachable here as the IR's tools.
from pypto._core.passes import PassManager, list_pipelines, load_pipeline



def compile(program, output_dir=None, *, config=None):  # noqa: A001  (the spec's name: ir.compile)
    """Lowers, generates and builds a whole program (a ``@pl.program`` class) and returns a
    ``pypto.jit.CompiledProgram``; calling that runs the program's entry orchestration function (the one
    marked ``pl.func_attr({"entry": True})``, or the only one). ``config`` is a ``pypto.runtime.RunConfig``
    (default: passes dumped, as a kernel call); the output goes to ``output_dir``, else to
    ``build_output/<program>_<time>``. See docs/compiling.md."""
    from pypto.jit.program import compile_program  # pypto.jit imports this module
    return compile_program(program, output_dir, config=config)


__all__ = [
    "compile",
    "PassManager",
    "list_pipelines",
    "load_pipeline",
    "DataType",
    "as_python",
    "assert_structural_equal",
    "deserialize",
    "load",
    "save",
    "serialize",
    "structural_equal",
    "structural_hash",
    "verify",
    "verify_or_raise",
]
