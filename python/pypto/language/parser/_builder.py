"""From one function's Python AST to an ``ir.Function``.

The body is never executed. Names resolve first against the values the body has bound (IR
variables, renamed on every assignment: SSA), then against the function's globals and closure,
whose Python numbers fold into constants. Loops and ifs turn names rebound inside them into
loop-carried values and if results.
"""

from __future__ import annotations

import ast
import builtins
import operator
import types
from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import Any, Callable, Protocol

from pypto import Error as CoreError
from pypto import ir, ops
from pypto.language import _types as T
from pypto.language._dsl import INTRINSICS, FunctionSpec, InlineFunction, Intrinsic
from pypto.kernels import RegisteredKernel, UnknownKernelError
from pypto.language._ops import Dispatcher, OpFunction, OpNamespace
from pypto.language.errors import (
    ParseError,
    ParseSyntaxError,
    ParseTypeError,
    ParseValueError,
    PlacementError,
)
from pypto.language.parser import _defer_wait
from pypto.language.parser._ast_util import intrinsic_call, is_docstring, return_values
from pypto.language.parser._control import ControlFlowMixin
from pypto.language.parser._external import ExternalMixin, is_external
from pypto.language.parser._source import Source
from pypto.language.parser._values import (CrossCoreSlotOption, Loop, SplitOption, annotation_filled_from, describe, is_number, level_name,
                                           same_kind_and_dtype, with_comments)

I = INTRINSICS
FT = ir.FunctionType
INDEX = ir.DataType.INDEX

BIN_OPS = {
    ast.Add: ir.BinaryOp.Add, ast.Sub: ir.BinaryOp.Sub, ast.Mult: ir.BinaryOp.Mul,
    ast.FloorDiv: ir.BinaryOp.FloorDiv, ast.Mod: ir.BinaryOp.FloorMod, ast.Div: ir.BinaryOp.FloatDiv,
    ast.Pow: ir.BinaryOp.Pow, ast.BitAnd: ir.BinaryOp.BitAnd, ast.BitOr: ir.BinaryOp.BitOr,
    ast.BitXor: ir.BinaryOp.BitXor, ast.LShift: ir.BinaryOp.BitShiftLeft, ast.RShift: ir.BinaryOp.BitShiftRight,
}
PY_BIN_OPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod, ast.Div: operator.truediv, ast.Pow: operator.pow, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
}
PY_CMP_OPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
}
CMP_OPS = {
    ast.Eq: ir.BinaryOp.Eq, ast.NotEq: ir.BinaryOp.Ne, ast.Lt: ir.BinaryOp.Lt, ast.LtE: ir.BinaryOp.Le,
    ast.Gt: ir.BinaryOp.Gt, ast.GtE: ir.BinaryOp.Ge,
}
# Tensor/tile arithmetic written with Python operators.
ARRAY_BIN_OPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div"}
INCORE_TYPES = {FT.InCore, FT.AIC, FT.AIV, FT.Group, FT.Spmd}
BUILTIN_HINTS = {
    "range": "use pl.range(...) (or pl.parallel / pl.unroll / pl.pipeline) for loops in a kernel",
    "print": "kernel bodies are parsed into IR, never run; remove the print",
    "len": "shapes are static in the types; read them from the annotation",
}


# Calls the parser evaluates as Python: they build constants, types and options, not IR.
STATIC_CALLABLES = (INTRINSICS["const"], INTRINSICS["split"], INTRINSICS["cross_core_slot"], T.dynamic, T.TensorView, T.TileView, T.MemRef, float)


def _is_host(spec: FunctionSpec) -> bool:
    """A @pl.jit.host orchestrator: the host plane, where window buffers are allocated and chip programs
    dispatched."""
    return spec.level == ir.Level.HOST and spec.role == ir.Role.Orchestrator


def _is_builtin(fn: Any) -> bool:
    return any(fn is v for v in vars(builtins).values())


@dataclass
class Callee:
    """What a ``self.f(...)`` call needs to know about ``f``."""

    name: str
    param_types: list[ir.Type]
    param_names: list[str]
    return_types: list[ir.Type]
    # The parameters themselves: return types name them (`-> pl.Tensor[[n, 64], ...]`).
    params: list[ir.Var] = field(default_factory=list)


class CalleeLookup(Protocol):
    def get(self, name: str) -> Callee | None: ...


@dataclass
class Context:
    """What a function parser shares with its program: sibling signatures and sub-function discovery."""

    # The program's functions by name: a dict, or a lazy lookup that parses a callee on demand.
    callees: Mapping[str, Callee] | CalleeLookup = field(default_factory=dict)
    # Resolves a Python object called from a body to a Callee (JIT sub-functions); None when not one.
    # Called with (object, call node, calling parser, the call's argument values), which are evaluated
    # once, before the callee is parsed, so that bare pl.Tensor parameters take the argument types.
    discover: Callable[[Any, ast.AST, "FunctionParser", list], Callee | None] | None = None


class FunctionParser(ControlFlowMixin, ExternalMixin):
    def __init__(self, source: Source, node: ast.FunctionDef, spec: FunctionSpec, globals_: dict,
                 context: Context | None = None, *, param_types: dict[str, ir.Type] | None = None,
                 scalar_values: dict[str, Any] | None = None, is_method: bool = False,
                 name: str | None = None, jit: bool = False) -> None:
        self.src = source
        self.node = node
        self.spec = spec
        self.globals = globals_
        self.ctx = context or Context()
        self.param_types = param_types or {}
        self.scalar_values = scalar_values or {}
        self.is_method = is_method
        self.jit = jit
        self.name = name or node.name
        self.env: dict[str, Any] = {}
        self.blocks: list[list] = []
        self.plane = "host" if _is_host(spec) else self._plane_of(spec.func_type)
        self.loops: list[Loop] = []
        self.memrefs: dict[str, ir.MemRef] = {}
        self.return_types: list[ir.Type] | None = None
        self.attrs: dict = dict(spec.attrs)
        self.pending_task_ids: dict[str, ast.With] = {}  # `as tid` names of the scopes being parsed
        self.params: list[ir.Var] = []
        self.directions: list[ir.ParamDirection] = []

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _plane_of(func_type: ir.FunctionType) -> str:
        if func_type in INCORE_TYPES:
            return "incore"
        if func_type == FT.Inline:
            return "any"
        return "control"

    def err(self, node, message: str, hint: str = "", cls: type = ParseError) -> ParseError:
        return self.src.error(node, message, hint, cls)

    def span(self, node) -> ir.Span:
        return self.src.span(node)

    def emit(self, stmt) -> None:
        self.blocks[-1].append(stmt)

    def block(self, stmts: list, node) -> ir.Stmt:
        return ir.SeqStmts(stmts, span=self.span(node))

    # ------------------------------------------------------------------ signatures
    def signature(self) -> tuple[list, list, list[ir.Type] | None]:
        """Params (Vars), their directions, and the declared return types (None: infer)."""
        args = self.node.args
        if args.vararg or args.kwarg or args.kwonlyargs:
            raise self.err(self.node, f"'{self.name}' may take plain parameters only (no *args, **kwargs or "
                           "keyword-only parameters)", cls=ParseSyntaxError)
        params, directions = [], []
        positional = list(args.posonlyargs) + list(args.args)
        if self.is_method:
            if not positional or positional[0].arg != "self":
                raise self.err(self.node, f"method '{self.name}' of a @pl.program class must take self first",
                               cls=ParseSyntaxError)
            positional = positional[1:]
        for arg in positional:
            if arg.arg in self.scalar_values:
                self.env[arg.arg] = self.scalar_values[arg.arg]
                continue
            direction, ty = self.param_type(arg)
            var = ir.Var(arg.arg, ty, span=self.span(arg))
            self.env[arg.arg] = var
            params.append(var)
            directions.append(direction)
        returns = None
        if self.node.returns is not None:
            returns = self.return_annotation(self.node.returns)
        return params, directions, returns

    def param_type(self, arg: ast.arg) -> tuple[ir.ParamDirection, ir.Type]:
        name = arg.arg
        if arg.annotation is None:
            if name in self.param_types:
                return ir.ParamDirection.In, self.param_types[name]
            raise self.err(arg, f"parameter '{name}' needs a type annotation",
                           f"annotate it, e.g. {name}: pl.Tensor[[64, 64], pl.FP32] or {name}: pl.Scalar[pl.INT32]",
                           ParseTypeError)
        spec = self.static(arg.annotation)
        direction = ir.ParamDirection.In
        if isinstance(spec, T.DirectionSpec):
            direction, spec = spec.direction, spec.inner
        if name in self.param_types and (spec is T.Tensor or isinstance(spec, T.TensorSpec)):
            return direction, self.jit_param_type(name, spec, arg.annotation)
        if spec is T.Tensor:
            raise self.err(arg.annotation, f"parameter '{name}' is a bare pl.Tensor: its shape comes from the "
                           "argument, which only @pl.jit functions have",
                           f"give the shape and dtype: {name}: pl.Tensor[[64, 64], pl.FP32]", ParseTypeError)
        return direction, self.to_type(spec, arg.annotation, f"parameter '{name}'")

    def jit_param_type(self, name: str, spec: Any, annotation) -> ir.Type:
        """A JIT parameter's type comes from its argument; a pld.DistributedTensor annotation demands a window."""
        given = self.param_types[name]
        if isinstance(spec, T.DistributedTensorSpec) and given.type_name != "DistributedTensorType":
            raise self.err(annotation, f"parameter '{name}' is a pld.DistributedTensor but got a plain tensor: peers "
                           "reach only window memory",
                           "pass a view of a window buffer: pld.window(pld.alloc_window_buffer(nbytes), shape, "
                           "dtype=...) in the @pl.jit.host orchestrator", ParseTypeError)
        return given

    def return_annotation(self, node) -> list[ir.Type] | None:
        if self.jit and self.static(node) is T.Tensor:
            return None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "tuple":
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return [self.to_type(self.static(e), e, "the return type") for e in elts]
        return [self.to_type(self.static(node), node, "the return type")]

    # ------------------------------------------------------------------ types
    def dim(self, d: Any, node) -> ir.Expr:
        if isinstance(d, bool):
            raise self.err(node, f"a dimension cannot be {d!r}", cls=ParseTypeError)
        if isinstance(d, int):
            return ir.ConstInt(d, span=self.span(node))
        if isinstance(d, T.DynamicDim):
            return d.var
        if isinstance(d, ir.Expr):
            return d
        raise self.err(node, f"a dimension must be an int, a pl.dynamic(...) or a scalar, got {d!r}",
                       cls=ParseTypeError)

    def dims(self, ds, node) -> list:
        return [self.dim(d, node) for d in (ds or [])]

    def to_type(self, spec: Any, node, what: str) -> ir.Type:
        if isinstance(spec, ir.Type):
            return spec
        if isinstance(spec, T.ScalarSpec):
            return ir.ScalarType(spec.dtype)
        if isinstance(spec, T.TensorSpec):
            view = None
            if spec.view is not None:
                v = spec.view
                view = ir.TensorView(self.dims(v.stride, node), self.dims(v.valid_shape, node),
                                     v.pad if v.pad is not None else ir.PadValue.null)
            layout = spec.layout if spec.layout is not None else ir.TensorLayout.ND
            cls = ir.DistributedTensorType if isinstance(spec, T.DistributedTensorSpec) else ir.TensorType
            return cls(self.dims(spec.shape, node), spec.dtype, layout, view)
        if isinstance(spec, T.TileSpec):
            kw: dict[str, Any] = {"memory_space": spec.memory_space}
            if spec.view is not None:
                v = spec.view
                kw.update(valid_shape=self.dims(v.valid_shape, node), blayout=v.blayout, slayout=v.slayout,
                          fractal=v.fractal)
                if v.pad is not None:
                    kw["pad"] = v.pad
            if spec.memref is not None:
                kw["memref"] = self.memref(spec.memref, node)
            return ir.TileType(self.dims(spec.shape, node), spec.dtype, **kw)
        if isinstance(spec, T.ArraySpec):
            return ir.ArrayType(spec.dtype, self.to_expr(spec.size, node))
        if isinstance(spec, T.TupleSpec):
            return ir.TupleType([self.to_type(f, node, what) for f in spec.fields])
        if isinstance(spec, T.PtrSpec):
            return ir.PtrType(spec.memory_space)
        if spec is T.Unknown:
            return ir.UnknownType()
        if isinstance(spec, T.DirectionSpec):
            raise self.err(node, f"pl.Out/pl.InOut mark parameters only; {what} cannot use one", cls=ParseTypeError)
        if spec is T.Tensor or spec is T.Tile or spec is T.Scalar:
            raise self.err(node, f"{what}: bare pl.{spec.__name__} has no shape or dtype",
                           "write e.g. pl.Tensor[[64, 64], pl.FP32], pl.Tile[[16, 16], pl.FP16] or pl.Scalar[pl.INT32]",
                           ParseTypeError)
        raise self.err(node, f"{what}: the annotation does not name a type (it is {spec!r})",
                       "use pl.Tensor[[shape], dtype], pl.Tile[...], pl.Scalar[dtype], pl.Tuple[...] "
                       "or an alias of one",
                       ParseTypeError)

    def memref(self, spec: T.MemRef, node) -> ir.MemRef:
        known = self.memrefs.get(spec.name)
        if known is not None:
            return known
        ref = ir.MemRef(spec.name, ir.PtrType(spec.memory_space), memory_space=spec.memory_space, base=spec.base,
                        byte_offset=self.to_expr(spec.byte_offset, node), size=spec.size, span=self.span(node))
        self.memrefs[spec.name] = ref
        return ref

    # ------------------------------------------------------------------ static evaluation
    def lookup_global(self, name: str, node):
        if name in self.scalar_values:
            return self.scalar_values[name]
        if name in self.globals:
            return self.globals[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        if name in self.pending_task_ids:
            scope = self.pending_task_ids[name]
            raise self.err(node, f"'{name}' is the task id of the scope at line {scope.lineno} and is defined only "
                           "after that scope ends", f"use '{name}' after the scope, e.g. in deps=[{name}] of a later "
                           "scope", ParseValueError)
        raise self.err(node, f"name '{name}' is not defined", cls=ParseValueError,
                       hint="define it before use (values bound inside a loop body are not visible after the loop; "
                            "bind it before the loop to make it loop-carried)")

    def static(self, node) -> Any:
        """A Python value for an annotation, a keyword or a pl.* reference; IR values where names are."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            return self.lookup_global(node.id, node)
        if isinstance(node, ast.Attribute):
            base = self.static(node.value)
            return self.attribute(base, node)
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.static(e) for e in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Dict):
            return {self.static(k): self.static(v) for k, v in zip(node.keys, node.values)}
        if isinstance(node, ast.Subscript):
            base = self.static(node.value)
            index = self.static(node.slice)
            try:
                return base[index]
            except (TypeError, ValueError, KeyError) as e:
                raise self.err(node, str(e), cls=ParseTypeError) from None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self.static(node.operand)
            if is_number(v):
                return -v
        if isinstance(node, ast.Call):
            return self.static_call(node)
        return self.value(node)

    def static_call(self, node: ast.Call) -> Any:
        fn = self.static(node.func)
        is_typed_empty_list = isinstance(fn, types.GenericAlias) and fn.__origin__ is list
        if not (any(fn is c for c in STATIC_CALLABLES) or is_typed_empty_list):
            return self.value(node)
        args = [self.static(a) for a in node.args]
        kwargs = {k.arg: self.static(k.value) for k in node.keywords if k.arg}
        if fn is I["const"]:
            return self.const(node, args, kwargs)
        if fn is I["split"]:
            slot_num = kwargs.get("slot_num")
            return SplitOption(args[0] if args else kwargs.get("mode"),
                               None if slot_num is None else self.slot_count(node, slot_num))
        if fn is I["cross_core_slot"]:
            if len(args) > 1 or set(kwargs) - {"slot_num"} or (args and "slot_num" in kwargs):
                raise self.err(node, "pl.cross_core_slot takes one argument, slot_num",
                               "write pl.cross_core_slot(slot_num=4)", ParseTypeError)
            slot_num = args[0] if args else kwargs.get("slot_num")
            if slot_num is None:
                raise self.err(node, "pl.cross_core_slot needs slot_num", "write pl.cross_core_slot(slot_num=4)",
                               ParseTypeError)
            return CrossCoreSlotOption(self.slot_count(node, slot_num))
        if fn is T.dynamic:
            return T.DynamicDim(*args, **kwargs, span=self.span(node))
        if is_typed_empty_list:
            return []  # list[str]() / list[pl.Expr](): the printer's typed empty lists
        return fn(*args, **kwargs)

    def slot_count(self, node: ast.Call, slot_num: Any) -> int:
        """A ring depth: a positive literal integer (the hardware's limit is ExpandMixedKernel's to check)."""
        if isinstance(slot_num, bool) or not isinstance(slot_num, int) or slot_num < 1:
            raise self.err(node, f"slot_num must be a positive literal integer, got {slot_num!r}",
                           "the ring depth is fixed when the kernel compiles: pl.cross_core_slot(slot_num=4)",
                           ParseValueError)
        return slot_num

    def attribute(self, base: Any, node: ast.Attribute) -> Any:
        import pypto.language as pl
        if isinstance(base, ir.Expr):
            raise self.err(node, f"IR values have no attribute '{node.attr}' in a kernel",
                           "shapes and dtypes are static: take them from the annotation", ParseTypeError)
        if base is pl:
            if node.attr in pl.__dict__:
                return pl.__dict__[node.attr]
            raise self.err(node, f"pl.{node.attr} does not exist", pl.level_specific_spelling(node.attr),
                           ParseTypeError)
        if isinstance(base, OpNamespace):
            if node.attr in base.__dict__:
                return base.__dict__[node.attr]
            raise self.err(node, f"pl.{base._name}.{node.attr} is not a registered op",
                           pl.level_specific_spelling(node.attr), ParseTypeError)
        try:
            return getattr(base, node.attr)
        except UnknownKernelError as e:
            raise self.err(node, str(e), cls=ParseValueError) from None
        except AttributeError:
            raise self.err(node, f"{base!r} has no attribute '{node.attr}'", cls=ParseTypeError) from None

    # ------------------------------------------------------------------ expressions
    def expr(self, node, what: str = "a value") -> ir.Expr:
        return self.to_expr(self.value(node), node, what)

    def to_expr(self, v: Any, node, what: str = "a value") -> ir.Expr:
        if isinstance(v, ir.Expr):
            return v
        if isinstance(v, bool):
            return ir.ConstBool(v, span=self.span(node))
        if isinstance(v, int):
            return ir.ConstInt(v, span=self.span(node))
        if isinstance(v, float):
            return ir.ConstFloat(v, span=self.span(node))
        if isinstance(v, T.DynamicDim):
            return v.var
        if isinstance(v, (list, tuple)):
            return ir.MakeTuple([self.to_expr(x, node, what) for x in v], span=self.span(node))
        raise self.err(node, f"expected {what}, got {v!r}", cls=ParseTypeError)

    def value(self, node) -> Any:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (int, float, bool, str)):
                return node.value
            raise self.err(node, f"the literal {node.value!r} has no meaning in a kernel", cls=ParseTypeError)
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            return self.lookup_global(node.id, node)
        if isinstance(node, ast.Attribute):
            return self.attribute(self.static(node.value), node)
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node)
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.BoolOp):
            op = ir.BinaryOp.And if isinstance(node.op, ast.And) else ir.BinaryOp.Or
            result = self.expr(node.values[0])
            for v in node.values[1:]:
                lhs, rhs = result, self.expr(v)
                result = self.checked(node, lambda: ir.BinaryExpr(op, lhs, rhs, span=self.span(node)))
            return result
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.value(e) for e in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Dict):
            return self.static(node)
        raise self.err(node, f"{type(node).__name__} expressions are not supported in a kernel",
                       cls=ParseSyntaxError)

    def scalar_operands(self, a: Any, b: Any, node) -> tuple[ir.Expr, ir.Expr]:
        """A Python literal beside a typed scalar takes the scalar's dtype."""
        def adopt(lit, other):
            if isinstance(other, ir.Expr) and isinstance(other.type, ir.ScalarType):
                dt = other.type.dtype
                if isinstance(lit, int) and not isinstance(lit, bool) and (dt.is_int() and dt != INDEX):
                    return ir.ConstInt(lit, dt, span=self.span(node))
                if isinstance(lit, float) and dt.is_float() and dt != ir.DataType.FP32:
                    return ir.ConstFloat(lit, dt, span=self.span(node))
            return self.to_expr(lit, node)
        ea = adopt(a, b) if not isinstance(a, ir.Expr) else a
        eb = adopt(b, a) if not isinstance(b, ir.Expr) else b
        return ea, eb

    def is_array(self, v: Any) -> bool:
        return isinstance(v, ir.Expr) and level_name(v.type) in ("TensorType", "TileType")

    def binop(self, node: ast.BinOp) -> Any:
        a, b = self.value(node.left), self.value(node.right)
        if is_number(a) and is_number(b):
            try:
                return PY_BIN_OPS[type(node.op)](a, b)
            except ArithmeticError as e:
                raise self.err(node, f"constant expression fails: {e}", cls=ParseValueError) from None
        if self.is_array(a) or self.is_array(b):
            name = ARRAY_BIN_OPS.get(type(node.op))
            if name is None or not self.is_array(a):
                raise self.err(node, "this operator does not apply to tensors or tiles",
                               "use the pl.* op, e.g. pl.maximum(a, b)", ParseTypeError)
            import pypto.language as pl
            return self.dispatch(getattr(pl, name), [a, b], {}, node, [node.left, node.right])
        op = BIN_OPS.get(type(node.op))
        if op is None:
            raise self.err(node, "operator not supported on scalars", cls=ParseSyntaxError)
        ea, eb = self.scalar_operands(a, b, node)
        return self.checked(node, lambda: ir.BinaryExpr(op, ea, eb, span=self.span(node)))

    def unary(self, node: ast.UnaryOp) -> Any:
        v = self.value(node.operand)
        if isinstance(node.op, ast.UAdd):
            return v
        if is_number(v):
            if isinstance(node.op, ast.USub):
                return -v
            if isinstance(node.op, ast.Not):
                return not v
            return ~v
        if self.is_array(v) and isinstance(node.op, ast.USub):
            import pypto.language as pl
            return self.dispatch(pl.neg, [v], {}, node, [node.operand])
        op = {ast.USub: ir.UnaryOp.Neg, ast.Not: ir.UnaryOp.Not, ast.Invert: ir.UnaryOp.BitNot}[type(node.op)]
        e = self.to_expr(v, node)
        return self.checked(node, lambda: ir.UnaryExpr(op, e, span=self.span(node)))

    def compare(self, node: ast.Compare) -> ir.Expr:
        result = None
        left = self.value(node.left)
        for op_node, right_node in zip(node.ops, node.comparators):
            right = self.value(right_node)
            op = CMP_OPS.get(type(op_node))
            if op is None:
                raise self.err(node, "only ==, !=, <, <=, >, >= compare scalars in a kernel", cls=ParseSyntaxError)
            if len(node.ops) == 1 and is_number(left) and is_number(right):
                return PY_CMP_OPS[type(op_node)](left, right)
            ea, eb = self.scalar_operands(left, right, node)
            cmp = self.checked(node, lambda: ir.BinaryExpr(op, ea, eb, span=self.span(node)))
            result = cmp if result is None else ir.BinaryExpr(ir.BinaryOp.And, result, cmp, span=self.span(node))
            left = right
        return result

    def checked(self, node, build: Callable[[], Any]) -> Any:
        """Runs an IR constructor, re-raising its errors at the user's expression."""
        try:
            return build()
        except ParseError:
            raise
        except CoreError as e:
            cls = ParseTypeError if isinstance(e, TypeError) else ParseValueError
            raise self.err(node, getattr(e, "message", str(e)), cls=cls) from None

    # ------------------------------------------------------------------ subscripts
    def subscript(self, node: ast.Subscript) -> Any:
        base = self.value(node.value)
        if not isinstance(base, ir.Expr):
            return self.static(node)
        tname = level_name(base.type)
        if tname == "TupleType":
            index = self.static(node.slice)
            if not isinstance(index, int):
                raise self.err(node.slice, "a tuple index must be a literal int", cls=ParseTypeError)
            return self.checked(node, lambda: ir.TupleGetItem(base, index, span=self.span(node)))
        if tname == "ArrayType":
            idx = self.expr(node.slice)
            return self.make_op("array.get_element", [base, idx], {}, node)
        if self.plane == "host" and tname == "TensorType" and not isinstance(node.slice, (ast.Slice, ast.Tuple)):
            return self.make_op("tensor.rank_slice", [base, self.expr(node.slice, "a rank")], {}, node)
        if tname in ("TensorType", "TileType"):
            shape, offset = self.window(base, node.slice, node)
            op = "tensor.slice" if tname == "TensorType" else "tile.slice"
            if self.plane == "host":
                op = "tensor.host_slice"
            return self.make_op(op, [base, shape, offset], {}, node)
        raise self.err(node, f"cannot subscript a {describe(base.type)}", cls=ParseTypeError)

    def window(self, base: ir.Expr, index_node, node) -> tuple[list, list]:
        """Extents and offsets of ``x[a:b, :]``: a slice per dimension (missing ones are whole)."""
        items = index_node.elts if isinstance(index_node, ast.Tuple) else [index_node]
        shape = list(base.type.shape)
        if len(items) > len(shape):
            raise self.err(index_node, f"{len(items)} indices for a rank-{len(shape)} value", cls=ParseTypeError)
        extents, offsets = [], []
        for d, extent in enumerate(shape):
            item = items[d] if d < len(items) else ast.Slice()
            if not isinstance(item, ast.Slice) or item.step is not None:
                raise self.err(item if hasattr(item, "lineno") else node,
                               "index tensors and tiles with start:stop slices (one per dimension)",
                               "e.g. a[0:16, :]; use pl.read for a single element", ParseTypeError)
            lo = self.value(item.lower) if item.lower is not None else 0
            hi = self.value(item.upper) if item.upper is not None else extent
            if is_number(lo) and is_number(hi):
                size = hi - lo
            elif is_number(lo) and lo == 0:
                size = hi
            else:
                hi_e, lo_e = self.scalar_operands(hi, lo, node)
                size = self.checked(node, lambda: ir.BinaryExpr(ir.BinaryOp.Sub, hi_e, lo_e, span=self.span(node)))
            if isinstance(size, ir.BinaryExpr):
                size = self.simplify_extent(size)
            extents.append(size)
            offsets.append(lo)
        return extents, offsets

    @staticmethod
    def simplify_extent(e: ir.BinaryExpr) -> Any:
        """``(i + 16) - i`` is 16, and so is ``(i * 16 + 16) - i * 16``: the common window spellings have a
        static extent. The start is compared by structure, since each spelling of it builds its own node."""
        lhs, rhs = e.lhs, e.rhs
        if isinstance(lhs, ir.BinaryExpr) and lhs.op == ir.BinaryOp.Add and ir.structural_equal(lhs.lhs, rhs) \
                and isinstance(lhs.rhs, ir.ConstInt):
            return lhs.rhs.value
        return e

    # ------------------------------------------------------------------ calls
    def call(self, node: ast.Call) -> Any:
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" \
                and "self" not in self.env and self.is_method:
            callee = self.ctx.callees.get(func.attr)
            if callee is None:
                raise self.err(func, f"the program has no function '{func.attr}'",
                               "decorate it with @pl.function inside the same @pl.program class", ParseValueError)
            return self.call_function(callee, node)
        fn = self.static(func)
        if any(k.arg is None for k in node.keywords) and not isinstance(fn, (OpFunction,)):
            raise self.err(node, "**kwargs are only accepted by op calls", cls=ParseSyntaxError)
        if isinstance(fn, OpFunction) and fn.op_name == "tensor.alloc_window_buffer":
            return self.alloc_window_buffer(node)
        if isinstance(fn, OpFunction):
            args = [self.value(a) for a in node.args]
            kwargs = self.import_kwargs(node) if fn.op_name == "system.import_peer_buffer" else self.kwargs(node)
            call_attrs = kwargs.pop("attrs", None)
            call = self.make_op(fn.op_name, args, kwargs, node, node.args)
            if call_attrs:
                call = ir.Call(call.op, call.args, call.kwargs, call_attrs, type=call.type, span=call.span)
            return call
        if isinstance(fn, Dispatcher):
            args = [self.value(a) for a in node.args]
            imports = fn.tile_op == "system.import_peer_buffer"
            return self.dispatch(fn, args, self.import_kwargs(node) if imports else self.kwargs(node), node, node.args)
        if isinstance(fn, Intrinsic):
            return self.intrinsic_expr(fn, node)
        if isinstance(fn, InlineFunction) or getattr(fn, "kind", None) == "inline" and hasattr(fn, "fn"):
            return self.splice(fn.fn, node)
        if isinstance(fn, RegisteredKernel):
            return self.call_registered_kernel(fn, node)
        if isinstance(fn, ir.Function):
            callee = Callee(fn.name, [p.type for p in fn.params], [p.name_hint for p in fn.params],
                            list(fn.return_types), list(fn.params))
            return self.call_function(callee, node)
        if self.plane == "host" and hasattr(fn, "kind") and hasattr(fn, "fn"):
            return self.host_dispatch(fn, node)
        if self.ctx.discover is not None and hasattr(fn, "kind") and hasattr(fn, "fn"):
            if node.keywords:
                raise self.err(node, f"calls of '{fn.fn.__name__}' take positional arguments only",
                               cls=ParseTypeError)
            args = [self.expr(a, "an argument") for a in node.args]
            callee = self.ctx.discover(fn, node, self, args)
            if callee is not None:
                return self.call_function(callee, node, args)
        if fn is abs:
            return self.checked(node, lambda: ir.UnaryExpr(ir.UnaryOp.Abs, self.expr(node.args[0]),
                                                          span=self.span(node)))
        if fn is float:
            return self.static_call(node)
        if _is_builtin(fn):
            name = getattr(fn, "__name__", ast.unparse(func))
            raise self.err(node, f"the Python builtin {name}() is not allowed in a kernel body",
                           BUILTIN_HINTS.get(name, "kernel bodies are parsed into IR, not run: use pl.* ops"),
                           ParseSyntaxError)
        raise self.err(func, f"{ast.unparse(func)} cannot be called in a kernel body (it is {fn!r})",
                       "call pl.* ops, pl.inline helpers, or functions of the program (self.f / @pl.jit.incore)",
                       ParseTypeError)

    @staticmethod
    def constant_as_param(e: ir.Expr, ptype: ir.Type) -> ir.Expr:
        """An integer constant argument (a literal, or a scalar the JIT specialized on) takes the integer dtype of
        the scalar parameter it is passed to, as a literal would in C: `k(x, 3)` for `n: pl.Scalar[pl.INT32]`."""
        if not isinstance(e, ir.ConstInt) or not isinstance(ptype, ir.ScalarType) or e.dtype == ptype.dtype:
            return e
        if not (ptype.dtype.is_int() or ptype.dtype == ir.DataType.INDEX):
            return e
        return ir.ConstInt(e.value, ptype.dtype, span=e.span)

    def kwargs(self, node: ast.Call) -> dict:
        out = {}
        for k in node.keywords:
            if k.arg is None:
                extra = self.static(k.value)
                out.update(extra)
            else:
                out[k.arg] = self.attr_value(k.value)
        return out

    def attr_value(self, node) -> Any:
        v = self.static(node)
        return self.normalize_attr(v, node)

    def normalize_attr(self, v: Any, node) -> Any:
        if isinstance(v, T.DynamicDim):
            return v.var
        if isinstance(v, (list, tuple)):
            return [self.normalize_attr(x, node) for x in v]
        return v

    def op_arg(self, v: Any, node) -> ir.Expr:
        return self.to_expr(v, node, "an op argument")

    def check_placement(self, op_name: str, node) -> None:
        if self.plane == "any" or not ops.exists(op_name):
            return
        placement = ops.get(op_name).placement
        if self.plane == "host":
            self.check_host_placement(op_name, placement, node)
            return
        if placement == "host orchestrator only":
            raise self.err(node, f"'{op_name}' belongs to the @pl.jit.host orchestrator, not to a "
                           f"{'kernel' if self.plane == 'incore' else 'chip program'}",
                           "allocate window buffers and views in the @pl.jit.host orchestrator and pass them in; "
                           "kernels get the rank and rank count from pld.rank / pld.nranks(pld.get_comm_ctx(window))",
                           PlacementError)
        ns = op_name.split(".")[0]
        if self.plane == "control" and placement in ("InCore code only", "InCore code or host orchestrator"):
            if ns == "tile":
                raise self.err(node, f"tile op '{op_name}' on the control plane: tiles live in on-chip memory, "
                               "which only InCore code has",
                               "put it inside `with pl.at(level=pl.Level.CORE_GROUP):` or in an InCore function",
                               PlacementError)
            raise self.err(node, f"Misplaced tensor op '{op_name}' in orchestration code: it should be inside "
                           "InCore block",
                           "wrap it in `with pl.at(level=pl.Level.CORE_GROUP):` or call an InCore function",
                           PlacementError)
        if self.plane == "incore" and placement == "outside InCore code only":
            what = "tensor creation" if op_name == "tensor.create" else f"'{op_name}'"
            raise self.err(node, f"{what} inside InCore code: {op_name} belongs to the orchestration side",
                           "create the tensor in the orchestration function and pass it in as pl.Out[...]; "
                           "use pl.tile.create for an on-chip buffer", PlacementError)

    def check_host_placement(self, op_name: str, placement: str, node) -> None:
        """A host orchestrator allocates windows, dispatches chip programs and runs host collectives; the compute
        belongs to the chip programs it dispatches."""
        if placement in ("host orchestrator only", "InCore code or host orchestrator", "anywhere"):
            return
        raise self.err(node, f"'{op_name}' in the @pl.jit.host orchestrator: the host allocates window buffers, "
                       "dispatches chip programs and runs host collectives; computing is the chip programs' job",
                       "move it into a @pl.jit chip program (or a kernel it calls) and dispatch that with device=r",
                       PlacementError)

    def alloc_window_buffer(self, node: ast.Call) -> ir.Expr:
        """``pld.alloc_window_buffer(nbytes)``, or ``([d0, d1], dtype=pl.FP32)``: the shape form is its bytes."""
        self.check_placement("tensor.alloc_window_buffer", node)
        call_attrs = {k.arg: k for k in node.keywords}.get("attrs")
        names = [k.arg for k in node.keywords if k.arg != "attrs"]
        if "name" in names:
            raise self.err(node, "pld.alloc_window_buffer takes no name=: the buffer is named by the variable it is "
                           "assigned to", "write buf = pld.alloc_window_buffer(nbytes)", ParseTypeError)
        if len(node.args) != 1 or any(n != "dtype" for n in names):
            raise self.err(node, "pld.alloc_window_buffer takes a size in bytes, or a shape list and dtype=",
                           "pld.alloc_window_buffer(4096) or pld.alloc_window_buffer([NR, 1], dtype=pl.INT32)",
                           ParseTypeError)
        kwargs = self.kwargs(node)
        kwargs.pop("attrs", None)
        size_node = node.args[0]
        if isinstance(size_node, (ast.List, ast.Tuple)):
            size = self.window_buffer_bytes(size_node, kwargs.get("dtype"), node)
        elif "dtype" in kwargs:
            raise self.err(node, "pld.alloc_window_buffer(nbytes, dtype=...): a size in bytes takes no dtype",
                           "pass a shape list with the dtype, or the bytes alone", ParseTypeError)
        else:
            size = self.value(size_node)
        call = self.make_op("tensor.alloc_window_buffer", [size], {}, node, node.args)
        if call_attrs is None:
            return call
        attrs = {key: self.normalize_attr(v, call_attrs.value) for key, v in self.static(call_attrs.value).items()}
        return ir.Call(call.op, call.args, call.kwargs, attrs, type=call.type, span=call.span)

    def window_buffer_bytes(self, dims_node: ast.AST, dtype: Any, node) -> Any:
        if not isinstance(dtype, ir.DataType):
            raise self.err(node, "pld.alloc_window_buffer([dims], dtype=...) needs the element dtype",
                           "e.g. pld.alloc_window_buffer([NR, 1], dtype=pl.INT32)", ParseTypeError)
        size: Any = dtype.bits // 8
        for dim in dims_node.elts:
            size = self.product(size, self.value(dim), node)
        return size

    def product(self, a: Any, b: Any, node) -> Any:
        if is_number(a) and is_number(b):
            return a * b
        lhs, rhs = self.scalar_operands(a, b, node)
        return self.checked(node, lambda: ir.BinaryExpr(ir.BinaryOp.Mul, lhs, rhs, span=self.span(node)))

    def host_dispatch(self, program: Any, node: ast.Call) -> ir.Expr:
        """``prog(*args, device=r)`` in a host orchestrator: run chip program ``prog`` on device r."""
        name = program.fn.__name__
        if program.kind != "orchestration":
            raise self.err(node, f"'{name}' is a @pl.jit.{program.kind} kernel; a host orchestrator dispatches @pl.jit "
                           "chip programs, which call the kernels",
                           f"wrap '{name}' in a @pl.jit function and dispatch that with device=r", ParseTypeError)
        keywords = {k.arg: k for k in node.keywords}
        if set(keywords) != {"device"}:
            extra = sorted(k for k in keywords if k != "device")
            raise self.err(node, f"'{name}(...)' in a host orchestrator takes its arguments by position and device=r"
                           + (f", not {', '.join(extra)}=" if extra else ""),
                           f"write {name}(..., device=r) inside `for r in pl.range(pld.world_size()):`",
                           ParseTypeError)
        device = self.expr(keywords["device"].value, "device=")
        args = [self.value(a) for a in node.args]
        return self.make_op("system.dispatch", [device, *args], {"program": name}, node)

    def make_op(self, op_name: str, args: list, kwargs: dict, node, arg_nodes=None) -> ir.Expr:
        if op_name == "system.defer_wait":
            _defer_wait.check_site(self, node)
        if op_name in ("tile.aiv_shard", "tile.aic_gather") and "split" not in kwargs:
            kwargs = {**kwargs, "split": self.region_split(op_name, node)}
        self.check_placement(op_name, node)
        if op_name == "tile.load":
            target = kwargs.get("target_memory")
            if target in (ir.MemorySpace.Left, ir.MemorySpace.Right):
                raise self.err(node, f"tile.load cannot load straight into {target.name}: the cube's L0 buffers "
                               "are filled from Mat (L1)",
                               f"load into pl.Mem.Mat, then pl.tile.move(t, target_memory=pl.Mem.{target.name})",
                               ParseValueError)
        args, kwargs = self.keyword_operands_to_positions(op_name, args, kwargs, node)
        args, kwargs = self.positional_options_to_keywords(op_name, args, kwargs, node)
        exprs = []
        for i, a in enumerate(args):
            where = arg_nodes[i] if arg_nodes and i < len(arg_nodes) else node
            exprs.append(self.op_arg(a, where))
        try:
            return ops.create(op_name, exprs, kwargs, self.span(node))
        except ParseError:
            raise
        except CoreError as e:
            cls = ParseTypeError if isinstance(e, TypeError) else ParseValueError
            message = getattr(e, "message", str(e))
            hint = "" if "signature" in message else f"the signature is {ops.get(op_name).signature}"
            raise self.err(node, message, hint, cls) from None

    def import_kwargs(self, node: ast.Call) -> dict:
        """pl.import_peer_buffer's keywords, ``peer=self.consumer`` naming a sibling kernel of the program."""
        peer = next((k.value for k in node.keywords if k.arg == "peer"), None)
        if not (isinstance(peer, ast.Attribute) and isinstance(peer.value, ast.Name) and peer.value.id == "self"):
            return self.kwargs(node)
        if self.ctx.callees.get(peer.attr) is None:
            raise self.err(peer, f"the program has no function '{peer.attr}'",
                           "name the Group's other kernel: peer=self.<kernel>", ParseValueError)
        others = ast.Call(func=node.func, args=node.args, keywords=[k for k in node.keywords if k.arg != "peer"])
        return {**self.kwargs(others), "peer": peer.attr}

    def region_split(self, op_name: str, node) -> int:
        """The split code of the pl.split_aiv region a crossing belongs to: pl.aiv_shard reads a cube value
        inside one, pl.aic_gather a region's value after it."""
        if op_name == "tile.aiv_shard":
            if self.split_aiv_mode is None:
                raise self.err(node, "pl.aiv_shard(x) hands a cube tile to the lanes of a pl.split_aiv region",
                               "call it inside `for lane in pl.split_aiv(2, mode=...):`", PlacementError)
            return int(self.split_aiv_mode)
        if self.split_aiv_mode is not None or self.last_split_aiv_mode is None:
            raise self.err(node, "pl.aic_gather(x) brings a pl.split_aiv region's value back to the cube core",
                           "call it after the region, on a value the region computed", PlacementError)
        return int(self.last_split_aiv_mode)

    def keyword_operands_to_positions(self, op_name: str, args: list, kwargs: dict, node) -> tuple[list, dict]:
        """`pl.load(t, offs, shape, valid_shape=[r, n])`: optional operands may be given by name."""
        if not ops.exists(op_name):
            return args, kwargs
        names = [a.name for a in ops.get(op_name).args]
        named = [n for n in names[len(args):] if n in kwargs]
        if not named:
            return args, kwargs
        last = max(names.index(n) for n in named)
        missing = [n for n in names[len(args):last] if n not in kwargs]
        if missing:
            raise self.err(node, f"{op_name}: operand '{names[last]}' is given but '{missing[0]}' before it is not",
                           f"the signature is {ops.get(op_name).signature}", ParseTypeError)
        kwargs = dict(kwargs)
        return list(args) + [kwargs.pop(n) for n in names[len(args):last + 1]], kwargs

    def positional_options_to_keywords(self, op_name: str, args: list, kwargs: dict, node) -> tuple[list, dict]:
        """`pl.create_tensor([64, 64], pl.FP32)`: positional values past an op's operands fill its
        options in signature order, as the manual writes them."""
        if not ops.exists(op_name):
            return args, kwargs
        schema = ops.get(op_name)
        if any(a.variadic for a in schema.args) or len(args) <= len(schema.args):
            return args, kwargs
        extra = args[len(schema.args):]
        names = [k.name for k in schema.kwargs]
        if len(extra) > len(names):
            raise self.err(node, f"{op_name} takes {len(schema.args)} operand(s) and {len(names)} option(s), "
                           f"got {len(args)} positional values", f"the signature is {schema.signature}",
                           ParseTypeError)
        kwargs = dict(kwargs)
        for name, value in zip(names, extra):
            if name in kwargs:
                raise self.err(node, f"{op_name} got option '{name}' both by position and by keyword",
                               f"the signature is {schema.signature}", ParseTypeError)
            kwargs[name] = value
        return list(args[:len(schema.args)]), kwargs

    def dispatch(self, d: Dispatcher, args: list, kwargs: dict, node, arg_nodes=None) -> Any:
        if d.tensor_op is None or d.tile_op is None:
            return self.make_op(d.tensor_op or d.tile_op, args, kwargs, node, arg_nodes)
        first = args[0] if args else None
        level = level_name(first.type) if isinstance(first, ir.Expr) else None
        if level not in ("TensorType", "TileType"):
            scalar = self.scalar_dispatch(d, args, node)
            if scalar is not None:
                return scalar
            raise self.err(node, f"pl.{d.name} picks pl.tensor.{d.name} or pl.tile.{d.name} by its first "
                           "argument, which is neither a tensor nor a tile",
                           f"call pl.tensor.{d.name} or pl.tile.{d.name} directly", ParseTypeError)
        op = d.tensor_op if level == "TensorType" else d.tile_op
        other = d.tile_op if level == "TensorType" else d.tensor_op
        lvl = "tensor" if level == "TensorType" else "tile"
        if len(args) >= 2 and not self.is_array(args[1]) and ops.exists(op + "s"):
            op = op + "s"
        schema = ops.get(op)
        known = {k.name for k in schema.kwargs}
        for key in kwargs:
            if key not in known:
                other_known = other and ops.exists(other) and key in {k.name for k in ops.get(other).kwargs}
                if other_known:
                    olvl = "tile" if lvl == "tensor" else "tensor"
                    raise self.err(node, f"pl.{d.name}: keyword '{key}' is only valid for {olvl} operands "
                                   f"(pl.{other}); these operands are {lvl}s",
                                   f"drop '{key}=' or call pl.{other} with {olvl} operands", ParseTypeError)
        return self.make_op(op, args, kwargs, node, arg_nodes)

    def scalar_dispatch(self, d: Dispatcher, args: list, node) -> Any:
        binary = {"add": ir.BinaryOp.Add, "sub": ir.BinaryOp.Sub, "mul": ir.BinaryOp.Mul,
                  "div": ir.BinaryOp.FloatDiv, "maximum": ir.BinaryOp.Max, "minimum": ir.BinaryOp.Min}
        unary = {"abs": ir.UnaryOp.Abs, "neg": ir.UnaryOp.Neg}
        if d.name in binary and len(args) == 2:
            a, b = self.scalar_operands(args[0], args[1], node)
            return self.checked(node, lambda: ir.BinaryExpr(binary[d.name], a, b, span=self.span(node)))
        if d.name in unary and len(args) == 1:
            e = self.to_expr(args[0], node)
            return self.checked(node, lambda: ir.UnaryExpr(unary[d.name], e, span=self.span(node)))
        return None

    def const(self, node, args, kwargs) -> ir.Expr:
        if len(args) + len(kwargs) != 2:
            raise self.err(node, "pl.const takes (value, dtype)", cls=ParseTypeError)
        value = args[0] if args else kwargs.get("value")
        dtype = args[1] if len(args) > 1 else kwargs.get("dtype")
        if not isinstance(dtype, ir.DataType):
            raise self.err(node, "pl.const: the second argument must be a dtype such as pl.INT64", cls=ParseTypeError)
        if isinstance(value, bool):
            return ir.ConstBool(value, span=self.span(node))
        if isinstance(value, int) and not dtype.is_float():
            return ir.ConstInt(value, dtype, span=self.span(node))
        if isinstance(value, (int, float)) and dtype.is_float():
            return ir.ConstFloat(float(value), dtype, span=self.span(node))
        if isinstance(value, float):
            raise self.err(node, f"pl.const: {value!r} is not a value of the integer dtype {dtype.name}",
                           "write an int, or use a floating-point dtype", ParseTypeError)
        raise self.err(node, f"pl.const needs a literal value, got {value!r}", cls=ParseTypeError)

    def intrinsic_expr(self, fn: Intrinsic, node: ast.Call) -> Any:
        name = fn.name
        if name == "const":
            return self.const(node, [self.static(a) for a in node.args],
                              {k.arg: self.static(k.value) for k in node.keywords})
        if name == "cast":
            if len(node.args) != 2:
                raise self.err(node, "pl.cast takes (value, dtype)", cls=ParseTypeError)
            v = self.value(node.args[0])
            dtype = self.static(node.args[1])
            if self.is_array(v):
                op = "tensor.cast" if level_name(v.type) == "TensorType" else "tile.cast"
                kw = {"target_type": dtype}
                kw.update(self.kwargs(node))
                return self.make_op(op, [v], kw, node)
            e = self.to_expr(v, node.args[0])
            return self.checked(node, lambda: ir.UnaryExpr(ir.UnaryOp.Cast, e, type=ir.ScalarType(dtype),
                                                          span=self.span(node)))
        if name in ("min", "max", "xor"):
            if len(node.args) != 2:
                raise self.err(node, f"pl.{name} takes two scalars", cls=ParseTypeError)
            op = {"min": ir.BinaryOp.Min, "max": ir.BinaryOp.Max, "xor": ir.BinaryOp.Xor}[name]
            a, b = self.scalar_operands(self.value(node.args[0]), self.value(node.args[1]), node)
            return self.checked(node, lambda: ir.BinaryExpr(op, a, b, span=self.span(node)))
        if name in ("split", "cross_core_slot"):
            return self.static_call(node)
        if name in ("submit", "spmd_submit"):
            return self.submit(node, grid=name == "spmd_submit")
        if name == "no_dep":
            raise self.err(node, "pl.no_dep(t) marks an argument of a kernel call: self.k(pl.no_dep(t), ...)",
                           "use it directly inside the call's argument list", ParseSyntaxError)
        places = {
            "yield_": "as the last statement of a loop body or of both if branches",
            "cond": "as the first statement of a pl.while_ body",
            "func_attr": "as the first statement of a function body",
            "at": "in a with statement", "cluster": "in a with statement", "manual_scope": "in a with statement",
            "spmd": "in a for or with statement",
        }
        raise self.err(node, f"pl.{name} is only valid {places.get(name, 'as the iterable of a for loop')}",
                       cls=ParseSyntaxError)

    def call_function(self, callee: Callee, node: ast.Call, values: list | None = None,
                      launch: dict | None = None) -> ir.Expr:
        """A call of a program function; ``values`` are the arguments when already evaluated.

        The one keyword is ``attrs={...}`` (compiler metadata, as the printer writes it); an argument
        written ``pl.no_dep(t)`` is listed in the call's ``no_dep_args``. ``launch`` (core_num,
        sync_start of pl.spmd_submit) goes first in the attrs."""
        attrs = dict(launch or {})
        for k in node.keywords:
            if k.arg != "attrs":
                hint = (f"launch it as a task with dependencies: pl.submit(self.{callee.name}, ..., deps=[...])"
                        if k.arg == "deps" else "pass the arguments by position")
                raise self.err(node, f"calls of '{callee.name}' take positional arguments only", hint,
                               ParseTypeError)
            given = self.static(k.value)
            if not isinstance(given, dict):
                raise self.err(k.value, "attrs= takes a dict", 'write attrs={"key": value}', ParseTypeError)
            attrs.update({key: self.normalize_attr(v, k.value) for key, v in given.items()})
        arg_nodes, no_dep = self.strip_no_dep(node.args)
        if len(arg_nodes) != len(callee.param_types):
            raise self.err(node, f"'{callee.name}' takes {len(callee.param_types)} arguments "
                           f"({', '.join(callee.param_names)}), got {len(arg_nodes)}", cls=ParseTypeError)
        if values is None:
            values = [self.expr(a, "an argument") for a in arg_nodes]
        args = []
        for a, e, pname, ptype in zip(arg_nodes, values, callee.param_names, callee.param_types):
            e = self.constant_as_param(e, ptype)
            if not same_kind_and_dtype(e.type, ptype):
                raise self.err(a, f"argument '{pname}' of '{callee.name}' must be {describe(ptype)}, "
                               f"got {describe(e.type)}", cls=ParseTypeError)
            args.append(e)
        for i in no_dep:
            if level_name(args[i].type) != "TensorType":
                raise self.err(node.args[i], f"pl.no_dep marks a tensor argument, but argument "
                               f"'{callee.param_names[i]}' of '{callee.name}' is {describe(args[i].type)}",
                               "drop pl.no_dep: only tensors take part in dependency tracking", ParseTypeError)
        if no_dep:
            attrs["no_dep_args"] = list(attrs.get("no_dep_args", [])) + [args[i] for i in no_dep]
        rt = ir.call_site_return_types(callee.params, callee.return_types, args) if callee.params \
            else callee.return_types
        ty = rt[0] if len(rt) == 1 else ir.TupleType(rt)
        return ir.Call(ir.GlobalVar(callee.name), args, {}, attrs, type=ty, span=self.span(node))

    def strip_no_dep(self, arg_nodes: list) -> tuple[list, list[int]]:
        """The argument nodes with ``pl.no_dep(t)`` unwrapped, and the positions that were wrapped."""
        plain, marked = [], []
        for i, a in enumerate(arg_nodes):
            if not (isinstance(a, ast.Call) and self.is_intrinsic(a.func, "no_dep")):
                plain.append(a)
                continue
            if len(a.args) != 1 or a.keywords:
                raise self.err(a, "pl.no_dep takes one tensor: self.k(pl.no_dep(t), ...)", cls=ParseTypeError)
            plain.append(a.args[0])
            marked.append(i)
        return plain, marked

    def is_intrinsic(self, func_node, name: str) -> bool:
        try:
            return self.static(func_node) is I[name]
        except ParseError:
            return False

    SUBMIT_OPTIONS = ("allow_early_resolve", "compiler_deps")

    def submit(self, node: ast.Call, grid: bool) -> ir.Expr:
        """``pl.submit(self.k, *args, deps=[...], ...)`` / ``pl.spmd_submit(..., core_num=N)``: a task."""
        name = "spmd_submit" if grid else "submit"
        func = node.args[0] if node.args else None
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"
                and self.is_method):
            raise self.err(node, f"pl.{name} launches a function of the program: pl.{name}(self.kernel, args...)",
                           "write it in a @pl.program class and name the kernel as self.<function>",
                           ParseSyntaxError)
        callee = self.ctx.callees.get(func.attr)
        if callee is None:
            raise self.err(func, f"the program has no function '{func.attr}'",
                           "decorate it with @pl.function inside the same @pl.program class", ParseValueError)
        deps, options, launch = [], {}, {}
        for k in node.keywords:
            if k.arg == "attrs":
                continue
            if k.arg is None:
                options.update({key: self.normalize_attr(v, k.value) for key, v in self.static(k.value).items()})
            elif k.arg == "deps":
                deps = self.deps(k.value)
            elif grid and k.arg == "core_num":
                launch["core_num"] = self.to_expr(self.value(k.value), k.value)
            elif grid and k.arg == "sync_start":
                launch["sync_start"] = bool(self.static(k.value))
            elif k.arg in self.SUBMIT_OPTIONS:
                options[k.arg] = self.attr_value(k.value)
            else:
                known = ["deps", *self.SUBMIT_OPTIONS, "attrs"] + (["core_num", "sync_start"] if grid else [])
                raise self.err(k, f"pl.{name} has no keyword '{k.arg}'", f"its keywords are {', '.join(known)}",
                               ParseTypeError)
        if grid and "core_num" not in launch:
            raise self.err(node, "pl.spmd_submit needs the number of blocks: core_num=N", cls=ParseTypeError)
        inner = ast.copy_location(ast.Call(func=func, args=node.args[1:],
                                           keywords=[k for k in node.keywords if k.arg == "attrs"]), node)
        call = self.call_function(callee, inner, launch=launch)
        return self.checked(node, lambda: ir.Submit(call, deps, options, span=self.span(node)))

    def splice(self, fn: Callable, node: ast.Call) -> Any:
        """Parses an @pl.inline helper's body in place, with its parameters bound to the arguments."""
        from pypto.language.parser._source import Source as Src
        import inspect
        src = Src.of_object(fn)
        fdef = src.tree.body[0]
        params = [a.arg for a in fdef.args.args]
        if len(params) != len(node.args) or node.keywords:
            raise self.err(node, f"'{fn.__name__}' takes {len(params)} positional arguments "
                           f"({', '.join(params)}), got {len(node.args)}", cls=ParseTypeError)
        values = [self.value(a) for a in node.args]
        closure = inspect.getclosurevars(fn)
        saved = (self.src, self.globals, self.env)
        self.src = src
        self.globals = {**fn.__globals__, **closure.nonlocals}
        self.env = dict(zip(params, values))
        try:
            body = [s for s in fdef.body if not is_docstring(s)]
            result = None
            for i, stmt in enumerate(body):
                if isinstance(stmt, ast.Return):
                    if i != len(body) - 1:
                        raise self.err(stmt, "an inline function returns only at its end", cls=ParseSyntaxError)
                    vals = [self.value(v) for v in return_values(stmt)]
                    result = vals[0] if len(vals) == 1 else tuple(vals)
                else:
                    self.stmt(stmt)
            return result
        finally:
            self.src, self.globals, self.env = saved

    # ------------------------------------------------------------------ statements
    def parse(self) -> ir.Function:
        params, directions, returns = self.signature()
        self.params, self.directions = params, directions
        if is_external(self.attrs):
            return self.parse_external(params, directions, returns)
        self.return_types = returns
        body_nodes = [s for s in self.node.body if not is_docstring(s)]
        if body_nodes and intrinsic_call(self, body_nodes[0]) is I["func_attr"]:
            call = body_nodes[0].value
            attrs = self.static(call.args[0]) if call.args else {}
            if not isinstance(attrs, dict):
                raise self.err(call, "pl.func_attr takes a dict literal", cls=ParseTypeError)
            self.attrs.update({k: self.normalize_attr(v, call) for k, v in attrs.items()})
            body_nodes = body_nodes[1:]
        self.blocks.append([])
        for stmt in body_nodes:
            self.stmt(stmt)
        stmts = self.blocks.pop()
        body = ir.SeqStmts(stmts, span=self.span(self.node))
        returns = self.return_types or []
        f = ir.Function(self.name, self.spec.func_type, params, directions, returns, body,
                        level=self.spec.level, role=self.spec.role, attrs=self.attrs, span=self.span(self.node))
        return f

    def stmts(self, nodes: list) -> list:
        self.blocks.append([])
        for n in nodes:
            self.stmt(n)
        return self.blocks.pop()

    def stmt(self, node) -> None:
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            raise self.err(node, f"{type(node).__name__} statements are not allowed in a kernel body",
                           "kernels use assignments, calls, if/for/while/with, return, break and continue",
                           ParseSyntaxError)
        block = self.blocks[-1]
        first = len(block)
        method(node)
        comments = self.src.take_comments(node)
        if comments and len(block) > first:
            block[first] = with_comments(block[first], comments)

    def stmt_Pass(self, node) -> None:
        return

    def stmt_Expr(self, node: ast.Expr) -> None:
        if is_docstring(node):
            return
        fn = intrinsic_call(self, node)
        if fn is I["yield_"]:
            raise self.err(node, "pl.yield_ must be the last statement of a loop body or of an if branch",
                           cls=ParseSyntaxError)
        if fn is I["cond"]:
            raise self.err(node, "pl.cond must be the first statement of a pl.while_ body",
                           "write `for (x,) in pl.while_(init_values=(x0,)):` and then `pl.cond(x < n)` first",
                           ParseSyntaxError)
        if fn is I["func_attr"]:
            raise self.err(node, "pl.func_attr must be the first statement of the function body",
                           cls=ParseSyntaxError)
        if not isinstance(node.value, ast.Call):
            raise self.err(node, "an expression statement has no effect in a kernel", cls=ParseSyntaxError)
        v = self.value(node.value)
        if isinstance(v, ir.Expr):
            self.emit(ir.EvalStmt(v, span=self.span(node)))

    def bind(self, name: str, value: Any, node, annotation: ir.Type | None = None) -> ir.Var:
        if annotation is not None and isinstance(annotation, ir.ScalarType) and is_number(value):
            value = self.const(node, [value, annotation.dtype], {})
        if not isinstance(value, ir.Expr):
            value = self.to_expr(value, node)
        ty = annotation or value.type
        old = self.env.get(name)
        if isinstance(old, ir.Expr) and not same_kind_and_dtype(old.type, ty):
            raise self.err(node, f"'{name}' was {describe(old.type)} and is reassigned {describe(ty)}",
                           "a name keeps its type; use a new name for the new value", ParseTypeError)
        var = ir.Var(name, ty, span=self.span(node))
        self.emit(ir.AssignStmt(var, value, span=self.span(node)))
        self.env[name] = var
        return var

    def stmt_Assign(self, node: ast.Assign) -> None:
        if len(node.targets) != 1:
            raise self.err(node, "chained assignment is not supported; assign one name at a time",
                           cls=ParseSyntaxError)
        target = node.targets[0]
        if intrinsic_call(self, node) is I["yield_"]:
            raise self.err(node, "pl.yield_ must be the last statement of a loop body or of an if branch",
                           cls=ParseSyntaxError)
        if isinstance(target, ast.Subscript):
            self.assign_subscript(target, node.value, node)
            return
        value = self.value(node.value)
        if isinstance(target, ast.Name):
            self.bind(target.id, value, node)
            return
        if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
            self.unpack(target, value, node)
            return
        raise self.err(target, "assign to a name, a tuple of names or a subscript", cls=ParseSyntaxError)

    def unpack(self, target: ast.Tuple, value: Any, node) -> None:
        names = [e.id for e in target.elts]
        if isinstance(value, tuple):
            if len(value) != len(names):
                raise self.err(node, f"{len(names)} names for {len(value)} values", cls=ParseValueError)
            for n, v in zip(names, value):
                self.bind(n, v, node)
            return
        e = self.to_expr(value, node.value)
        if e.type.type_name != "TupleType" or len(e.type.fields) != len(names):
            raise self.err(node.value, f"{len(names)} names but the value is {describe(e.type)}", cls=ParseTypeError)
        tmp = e
        if not isinstance(e, ir.Var):
            # The tuple itself gets no name in the program: it cannot clash with one of the targets.
            tmp = ir.Var("_".join(names), e.type, span=self.span(node))
            self.emit(ir.AssignStmt(tmp, e, span=self.span(node)))
        for i, n in enumerate(names):
            if n != "_":  # `_` takes nothing: `r, _ = pl.submit(...)`
                self.bind(n, ir.TupleGetItem(tmp, i, span=self.span(node)), node)

    def assign_subscript(self, target: ast.Subscript, value_node, node) -> None:
        if not isinstance(target.value, ast.Name):
            raise self.err(target, "assign into a named tensor, e.g. out[0:16, :] = t", cls=ParseSyntaxError)
        name = target.value.id
        dst = self.value(target.value)
        if not isinstance(dst, ir.Expr):
            raise self.err(target.value, f"'{name}' is not a value of the kernel", cls=ParseTypeError)
        tname = level_name(dst.type)
        if tname == "ArrayType":
            idx = self.expr(target.slice)
            val = self.expr(value_node)
            result = self.make_op("array.update_element", [dst, idx, val], {}, node)
            self.bind(name, result, node)
            return
        if tname != "TensorType":
            raise self.err(target, f"subscript assignment writes into a tensor; '{name}' is {describe(dst.type)}",
                           "use pl.tile.assemble for tiles", ParseTypeError)
        src = self.expr(value_node)
        _, offsets = self.window(dst, target.slice, node)
        result = self.make_op("tensor.assemble", [dst, src, offsets], {}, node)
        self.bind(name, result, node)

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        if not isinstance(node.target, ast.Name) or node.value is None:
            raise self.err(node, "annotated assignments bind one name to a value: x: T = v", cls=ParseSyntaxError)
        if intrinsic_call(self, node) is I["yield_"]:
            raise self.err(node, "pl.yield_ must be the last statement of a loop body or of an if branch",
                           cls=ParseSyntaxError)
        ty = self.to_type(self.static(node.annotation), node.annotation, f"'{node.target.id}'")
        value = self.value(node.value)
        if isinstance(value, ir.Expr) and not same_kind_and_dtype(value.type, ty) \
                and value.type.type_name != "UnknownType":
            raise self.err(node.value, f"the value is {describe(value.type)} but '{node.target.id}' is annotated "
                           f"{describe(ty)}", "fix the annotation or convert with pl.cast", ParseTypeError)
        if isinstance(value, ir.Expr):
            ty = annotation_filled_from(ty, value.type)
        self.bind(node.target.id, value, node, ty)

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:
        if not isinstance(node.target, ast.Name):
            raise self.err(node, "augmented assignment works on names", cls=ParseSyntaxError)
        binop = ast.BinOp(left=ast.Name(node.target.id, ast.Load()), op=node.op, right=node.value)
        ast.copy_location(binop, node)
        binop.left.lineno, binop.left.col_offset = node.target.lineno, node.target.col_offset
        binop.left.end_lineno, binop.left.end_col_offset = node.target.end_lineno, node.target.end_col_offset
        self.bind(node.target.id, self.binop(binop), node)

    def stmt_Return(self, node: ast.Return) -> None:
        values = [self.expr(v, "a return value") for v in return_values(node)]
        if len(values) == 1 and self.returns_results_of_call(values[0]):
            values = self.results_of(values[0], node)
        types = [v.type for v in values]
        if self.return_types is None:
            self.return_types = types
        elif len(types) != len(self.return_types):
            raise self.err(node, f"'{self.name}' returns {len(self.return_types)} values, this return gives "
                           f"{len(types)}", cls=ParseTypeError)
        else:
            for v, t, vn in zip(values, self.return_types, return_values(node)):
                if not same_kind_and_dtype(v.type, t):
                    raise self.err(vn, f"return value is {describe(v.type)}, the function returns {describe(t)}",
                                   cls=ParseTypeError)
        self.emit(ir.ReturnStmt(values, span=self.span(node)))

    @staticmethod
    def returns_results_of_call(value: ir.Expr) -> bool:
        """`return kernel(...)` where the kernel returns several values: the function returns each of them."""
        return isinstance(value, ir.Call) and isinstance(value.op, ir.GlobalVar) and value.type.type_name == "TupleType"

    def results_of(self, call: ir.Expr, node) -> list[ir.Expr]:
        results = ir.Var(f"{call.op.name}_results", call.type, span=self.span(node))
        self.emit(ir.AssignStmt(results, call, span=self.span(node)))
        return [ir.TupleGetItem(results, i, span=self.span(node)) for i in range(len(call.type.fields))]

    def stmt_Break(self, node) -> None:
        self.loop_exit(node, "break")
        self.emit(ir.BreakStmt(span=self.span(node)))

    def stmt_Continue(self, node) -> None:
        self.loop_exit(node, "continue")
        self.emit(ir.ContinueStmt(span=self.span(node)))

    def loop_exit(self, node, word: str) -> None:
        if not self.loops:
            raise self.err(node, f"'{word}' outside a loop", cls=ParseSyntaxError)
        kind = self.loops[-1].kind
        if kind not in ("Sequential", "While"):
            raise self.err(node, f"'{word}' is not allowed in a {kind.lower()} loop",
                           "break and continue work in pl.range and while loops only", ParseSyntaxError)
        updated = [n for n, ia in self.loops[-1].carried.items() if self.env.get(n) is not ia]
        if updated:
            passed_on = "the loop's result" if word == "break" else "the next iteration"
            raise self.err(node, f"'{updated[0]}' is carried by the loop and was reassigned earlier in this "
                           f"iteration, but {passed_on} would get the value it had when the iteration began: a "
                           f"loop-carried value cannot be passed on from a '{word}'",
                           f"move the '{word}' before the assignment, or put the rest of the body in an else "
                           f"branch instead of using '{word}'", ParseSyntaxError)
