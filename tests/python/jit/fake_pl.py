"""A stand-in for `pypto.language` with just the annotation spellings the JIT reads.

The JIT reads annotations from the syntax tree, so these objects only have
to exist and be subscriptable; dtypes are the real ir.DataType values and
pl.dynamic returns an object with a `name`, as the real one does.
"""

from pypto import ir
from pypto.jit import jit

Level = ir.Level
TensorLayout = ir.TensorLayout

for _dtype in ir.DataType.all():
    globals()[_dtype.name] = _dtype


class _TypeHead:
    def __init__(self, spelling: str) -> None:
        self.spelling = spelling

    def __getitem__(self, item: object) -> tuple[str, object]:
        return (self.spelling, item)


Tensor = _TypeHead("Tensor")
Scalar = _TypeHead("Scalar")
Tile = _TypeHead("Tile")
Out = _TypeHead("Out")
InOut = _TypeHead("InOut")


class DynamicDim:
    def __init__(self, name: str) -> None:
        self.name = name


def dynamic(name: str) -> DynamicDim:
    return DynamicDim(name)


__all__ = ["InOut", "Level", "Out", "Scalar", "Tensor", "TensorLayout", "Tile", "dynamic", "jit"]
