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
)

__all__ = [
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
]
