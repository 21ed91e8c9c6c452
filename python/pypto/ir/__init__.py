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

__all__ = [
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
