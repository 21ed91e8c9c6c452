"""What a kernel's parameter annotations promise: tensor or scalar, shape, dtype, direction.

Annotations are read from the syntax tree rather than from the objects
Python builds for them, so ``pl.Tensor[[M, 64], pl.FP32]`` means the same
here as in the parser whatever classes ``pypto.language`` uses. Only the
pieces that are values are evaluated, in the kernel's own namespace: the
dimensions (an int, or an object made by ``pl.dynamic("M")``), the dtype and
the layout. A bare name (``x: Mat64``) is a module-level alias and is read
from its assignment in the module.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import sys
from dataclasses import dataclass, field
from typing import Any

import pypto
from pypto import ir
from pypto.jit.source import SourceInfo

TENSOR_HEADS = {"Tensor", "DistributedTensor"}
SCALAR_HEADS = {"Scalar"}
DIRECTION_HEADS = {"Out": "Out", "InOut": "InOut"}
OTHER_TYPE_HEADS = {"Tile", "Tuple", "Array", "TensorView", "Ptr"}
KNOWN_HEADS = TENSOR_HEADS | SCALAR_HEADS | set(DIRECTION_HEADS) | OTHER_TYPE_HEADS


@dataclass(frozen=True)
class DynamicDim:
    """A dimension declared with pl.dynamic(name): its size comes from the argument and is not keyed.

    ``var`` is the IR variable of the ``pl.dynamic`` object the annotation names, when it names one: the
    specialized parameter types use it, so that the body's uses of the same name (a ``valid_shape=[16, N]``)
    are the very dimension of the parameter.
    """

    name: str
    var: Any = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return self.name


Dim = int | DynamicDim


@dataclass(frozen=True)
class ParamSpec:
    """One parameter as its annotation describes it.

    kind is "tensor", "scalar", "other" (a type the JIT does not specialize on,
    such as pl.Tile) or "unannotated". shape is None when the annotation gives
    none (bare pl.Tensor: the argument decides).
    """

    name: str
    kind: str
    shape: tuple[Dim, ...] | None = None
    dtype: ir.DataType | None = None
    layout: Any = None
    direction: str = "In"
    text: str = ""  # the annotation as written, for messages
    window: bool = False  # pld.DistributedTensor: the argument must be a window view

    @property
    def fully_annotated(self) -> bool:
        return self.kind == "tensor" and self.shape is not None and self.dtype is not None


class AnnotationError(pypto.InvalidTypeError):
    """An annotation the JIT cannot read; the message points at it."""


def _head(node: ast.AST) -> str | None:
    """The last identifier of `pl.Tensor`, `Tensor` or `pypto.language.Tensor`."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


class AnnotationReader:
    """Reads the parameter annotations of one function."""

    def __init__(self, info: SourceInfo, names: dict[str, Any], module_name: str) -> None:
        self._info = info
        self._names = names
        self._module_name = module_name
        self.followed_alias = False  # whether a module-level alias was read (its right side reads more names)

    def params(self) -> list[ParamSpec]:
        args = self._info.tree.args
        return [self.read(arg.arg, arg.annotation) for arg in args.posonlyargs + args.args + args.kwonlyargs]

    def read(self, name: str, node: ast.AST | None) -> ParamSpec:
        if node is None:
            return ParamSpec(name, "unannotated")
        return self._read(name, node, ast.unparse(node), "In", depth=0)

    def _fail(self, node: ast.AST, message: str) -> AnnotationError:
        line, column = self._info.file_position(node)
        error = AnnotationError(f"{self._info.filename}:{line}:{column}: {message}")
        error.message, error.filename, error.lineno, error.col_offset = message, self._info.filename, line, column
        return error

    def _read(self, name: str, node: ast.AST, text: str, direction: str, depth: int) -> ParamSpec:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            parsed = ast.parse(node.value, mode="eval").body
            for inner in ast.walk(parsed):  # errors inside a string annotation point at the string
                ast.copy_location(inner, node)
            return self._read(name, parsed, node.value, direction, depth)
        if isinstance(node, ast.Subscript):
            head = _head(node.value)
            if head in DIRECTION_HEADS:
                return self._read(name, node.slice, text, DIRECTION_HEADS[head], depth)
            if head in TENSOR_HEADS:
                spec = self._tensor(name, node.slice, text, direction)
                return dataclasses.replace(spec, window=head == "DistributedTensor")
            if head in SCALAR_HEADS:
                return ParamSpec(name, "scalar", dtype=self._dtype(node.slice), direction=direction, text=text)
            return ParamSpec(name, "other", direction=direction, text=text)
        head = _head(node)
        if head in TENSOR_HEADS:
            return ParamSpec(name, "tensor", direction=direction, text=text)
        if head in SCALAR_HEADS:
            return ParamSpec(name, "scalar", direction=direction, text=text)
        if head in KNOWN_HEADS:
            return ParamSpec(name, "other", direction=direction, text=text)
        if isinstance(node, ast.Name) and depth < 8:
            alias = self._module_alias(node.id)
            if alias is not None:
                self.followed_alias = True
                for inner in ast.walk(alias):  # errors inside the alias point at its use in this signature
                    ast.copy_location(inner, node)
                return self._read(name, alias, text, direction, depth + 1)
        return ParamSpec(name, "other", direction=direction, text=text)

    def _tensor(self, name: str, node: ast.AST, text: str, direction: str) -> ParamSpec:
        items = node.elts if isinstance(node, ast.Tuple) else [node]
        if len(items) < 2:
            raise self._fail(node, f"parameter '{name}': write pl.Tensor[[dims...], dtype], got {text}")
        shape = self._shape(name, items[0])
        dtype = self._dtype(items[1])
        layout = self._evaluate(items[2]) if len(items) > 2 else None
        return ParamSpec(name, "tensor", shape, dtype, layout, direction, text)

    def _shape(self, name: str, node: ast.AST) -> tuple[Dim, ...]:
        if isinstance(node, (ast.List, ast.Tuple)):
            return tuple(self._dim(name, element) for element in node.elts)
        value = self._evaluate(node)
        if isinstance(value, (list, tuple)):
            return tuple(self._dim_value(name, node, v, None) for v in value)
        raise self._fail(node, f"parameter '{name}': the shape of a tensor annotation is a list of "
                               f"dimensions, got {ast.unparse(node)}")

    def _dim(self, name: str, node: ast.AST) -> Dim:
        if isinstance(node, ast.Call) and _head(node.func) == "dynamic" and node.args and \
                isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            return DynamicDim(node.args[0].value)
        fallback = node.id if isinstance(node, ast.Name) else None
        return self._dim_value(name, node, self._evaluate(node), fallback)

    def _dim_value(self, name: str, node: ast.AST, value: Any, fallback: str | None) -> Dim:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, ir.Var):
            return DynamicDim(value.name_hint, value)
        dynamic_name = getattr(value, "name", None)
        if isinstance(dynamic_name, str):
            var = getattr(value, "var", None)
            return DynamicDim(dynamic_name, var if isinstance(var, ir.Var) else None)
        if fallback is not None and value is not None and not isinstance(value, (float, str, bool)):
            return DynamicDim(fallback)
        raise self._fail(node, f"parameter '{name}': a dimension is an int or pl.dynamic(\"N\"), "
                               f"got {ast.unparse(node)} = {value!r}")

    def _dtype(self, node: ast.AST) -> ir.DataType:
        head = _head(node)
        if head is not None and hasattr(ir.DataType, head) and isinstance(getattr(ir.DataType, head), ir.DataType):
            return getattr(ir.DataType, head)
        value = self._evaluate(node)
        if isinstance(value, ir.DataType):
            return value
        raise self._fail(node, f"expected a dtype such as pl.FP32, got {ast.unparse(node)}")

    def _evaluate(self, node: ast.AST) -> Any:
        try:
            code = compile(ast.Expression(node), self._info.filename, "eval")
            return eval(code, dict(self._names))  # noqa: S307 - the kernel's own annotation, in its own namespace
        except Exception as exc:  # noqa: BLE001 - any failure is reported at the annotation
            raise self._fail(node, f"cannot evaluate {ast.unparse(node)} in the kernel's namespace: {exc}") \
                from exc

    def _module_alias(self, alias: str) -> ast.AST | None:
        """The right-hand side of `alias = ...` (or `alias: T = ...`) at the top of the kernel's module."""
        module = sys.modules.get(self._module_name)
        if module is None:
            return None
        try:
            tree = ast.parse(inspect.getsource(module))
        except (OSError, TypeError, SyntaxError):
            return None
        for statement in tree.body:
            if isinstance(statement, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == alias for t in statement.targets):
                return statement.value
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and \
                    statement.target.id == alias and statement.value is not None:
                return statement.value
        return None


OUTPUT_DIRECTIONS = ("Out", "InOut")


def call_outputs(specs: list[ParamSpec], values: dict[str, Any], result: Any) -> dict[str, Any]:
    """What a kernel call produced: its pl.Out and pl.InOut arguments by parameter name, then each returned tensor
    the program created (`return`, or `return_0`, `return_1`, ... for several)."""
    outputs = {s.name: values[s.name] for s in specs if s.direction in OUTPUT_DIRECTIONS}
    returned = result if isinstance(result, tuple) else (() if result is None else (result,))
    created = [r for r in returned if not any(r is v for v in values.values())]
    for index, tensor in enumerate(created):
        outputs["return" if len(created) == 1 else f"return_{index}"] = tensor
    return outputs
