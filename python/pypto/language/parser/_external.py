"""Kernels written in C++: functions declared with ``external_source=`` (``@pl.jit.incore``, ``@pl.function``
in a ``@pl.program`` class; ``@pl.jit.extern(source=)`` sets it too) and the kernels of kernel plugins.

An external function keeps its signature (the parameters' annotations) and gets a body the passes and
backends understand: it returns its written (Out/InOut) parameters, as a kernel that wrote them in
place does. Its ``external_source`` attribute, resolved to an absolute path here, is what the NPU
backend compiles instead of generating code; its ``include_dirs`` (from ``@pl.jit.extern``), resolved the
same way, are the further folders the toolchain compiles it with.

A kernel plugin's kernel (``pypto.kernels.<name>(...)``) is checked against its manifest signature at
the call and becomes such a function, with the call's argument types as parameter types.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pypto import ir
from pypto.language.errors import ParseSyntaxError, ParseTypeError, ParseValueError
from pypto.language.parser._ast_util import is_docstring
from pypto.language.parser._values import describe

if TYPE_CHECKING:
    from pypto.kernels import RegisteredKernel

FT = ir.FunctionType
EXTERNAL_TYPES = (FT.InCore, FT.AIC, FT.AIV)
WRITTEN = (ir.ParamDirection.Out, ir.ParamDirection.InOut)


def is_external(attrs: dict) -> bool:
    return attrs.get("external_source") is not None


def written_results(name: str, params: list[ir.Var], directions: list, returns: list[ir.Type] | None,
                    fail) -> list[ir.Var]:
    """The parameters an external kernel returns: its Out/InOut tensors, in order, one per declared return
    type. ``fail(message, hint)`` raises the error for a return type that no written parameter has."""
    written = [p for p, d in zip(params, directions) if d in WRITTEN]
    returns = returns or []
    if len(returns) > len(written):
        fail(f"external kernel '{name}' returns {len(returns)} values but writes only {len(written)} parameters "
             f"({', '.join(p.name_hint for p in written) or 'none'}); its C++ code cannot allocate tensors, so "
             "it returns the pl.Out/pl.InOut tensors it writes",
             "mark the written parameters pl.Out[...] or pl.InOut[...], or drop the return annotation")
    for param, rtype in zip(written, returns):
        if ir.as_python(param.type) != ir.as_python(rtype):
            fail(f"external kernel '{name}' returns {describe(rtype)} where its written parameter "
                 f"'{param.name_hint}' is {describe(param.type)}",
                 "an external kernel returns its pl.Out/pl.InOut parameters in order; make the types match")
    return written[:len(returns)]


class ExternalMixin:
    """Parsing external functions and calls of kernel-plugin kernels (mixed into FunctionParser)."""

    # ------------------------------------------------------------------ external_source= functions
    def parse_external(self, params: list[ir.Var], directions: list, returns: list[ir.Type] | None) -> ir.Function:
        self.check_external_type()
        self.check_external_body()
        source = self.resolve_external_source()
        self.attrs["external_source"] = str(source)
        if self.attrs.get("include_dirs"):
            self.attrs["include_dirs"] = self.resolve_include_dirs()

        def fail(message: str, hint: str) -> None:
            raise self.err(self.node.returns or self.node, message, hint, ParseTypeError)

        results = written_results(self.name, params, directions, returns, fail)
        span = self.span(self.node)
        body = ir.SeqStmts([ir.ReturnStmt(results, span=span)] if results else [], span=span)
        return ir.Function(self.name, self.spec.func_type, params, directions, list(returns or []), body,
                           level=self.spec.level, role=self.spec.role, attrs=self.attrs, span=span)

    def check_external_type(self) -> None:
        if self.spec.func_type not in EXTERNAL_TYPES:
            raise self.err(self.node, f"'{self.name}' has external_source= but is a {self.spec.func_type.name} "
                           "function; only a kernel (InCore, AIC or AIV) can be written in C++",
                           "declare it with @pl.jit.extern(core_type=\"aiv\", source=...) or, in a @pl.program "
                           "class, @pl.function(type=pl.FunctionType.AIV, external_source=...)", ParseTypeError)

    def check_external_body(self) -> None:
        body = [s for s in self.node.body if not is_docstring(s)]
        is_ellipsis = len(body) == 1 and isinstance(body[0], ast.Expr) and \
            isinstance(body[0].value, ast.Constant) and body[0].value.value is Ellipsis
        if not is_ellipsis:
            where = body[0] if body else self.node
            raise self.err(where, f"'{self.name}' has external_source='{self.attrs['external_source']}', so its "
                           "code is that C++ file and its body must be `...`",
                           "write the signature only: def f(a: pl.Tensor[...], out: pl.Out[...]) -> ...: ...",
                           ParseSyntaxError)

    def resolve_external_source(self) -> Path:
        given = Path(self.attrs["external_source"])
        source = (Path(self.src.filename).parent / given).resolve()  # an absolute `given` stays itself
        if not source.is_file():
            raise self.err(self.node, f"the external_source of '{self.name}', '{given}', does not exist "
                           f"(looked for {source})",
                           "give a path to the C++ file relative to this Python file, or an absolute one",
                           ParseValueError)
        return source

    def resolve_include_dirs(self) -> list[str]:
        """include_dirs= of @pl.jit.extern, resolved against the Python file like the source (the toolchain
        compiles the kernel with them on its include path)."""
        resolved = []
        for given in self.attrs["include_dirs"]:
            folder = (Path(self.src.filename).parent / given).resolve()
            if not folder.is_dir():
                raise self.err(self.node, f"the include_dirs entry '{given}' of '{self.name}' is not a folder "
                               f"(looked for {folder})",
                               "give folders relative to this Python file, or absolute ones", ParseValueError)
            resolved.append(str(folder))
        return resolved

    def check_written_arguments(self, kernel: str, param_names: list[str], written: list[bool],
                                args: list[ir.Expr], arg_nodes: list) -> None:
        """An argument a kernel writes must not be an input parameter of the calling function."""
        inputs = {id(p) for p, d in zip(self.params, self.directions) if d == ir.ParamDirection.In}
        for pname, writes, arg, node in zip(param_names, written, args, arg_nodes):
            if writes and id(arg) in inputs:
                raise self.err(node, f"'{kernel}' writes its parameter '{pname}', but the argument "
                               f"'{arg.name_hint}' is an input (In) parameter of '{self.name}'",
                               f"declare it {arg.name_hint}: pl.Out[...] (or pl.InOut[...]) in '{self.name}', or "
                               "pass a tensor this function may write", ParseTypeError)

    # ------------------------------------------------------------------ pypto.kernels.<name>(...)
    def call_registered_kernel(self, kernel: RegisteredKernel, node: ast.Call) -> ir.Expr:
        title = f"pypto.kernels.{kernel.name}"
        if self.ctx.discover is None or self.plane != "control":
            raise self.err(node, f"{title} runs as a task of its own and is called from a @pl.jit function",
                           "call it in the @pl.jit function's body, outside pl.at(...) scopes and InCore "
                           "functions", ParseSyntaxError)
        if node.keywords:
            raise self.err(node, f"{title} takes positional arguments only",
                           f"its signature is {kernel.signature()}", ParseTypeError)
        expected = len(kernel.tensors) + len(kernel.scalars)
        if len(node.args) != expected:
            raise self.err(node, f"{title} takes {expected} arguments ({', '.join(kernel.param_names)}), "
                           f"got {len(node.args)}", f"its signature is {kernel.signature()} ({kernel.where()})",
                           ParseTypeError)
        tensor_nodes = node.args[:len(kernel.tensors)]
        scalar_nodes = node.args[len(kernel.tensors):]
        tensors = self.kernel_tensor_arguments(kernel, tensor_nodes)
        scalars = [self.kernel_scalar_argument(kernel, p, a) for p, a in zip(kernel.scalars, scalar_nodes)]
        self.check_written_arguments(title, [t.name for t in kernel.tensors], [t.written for t in kernel.tensors],
                                     tensors, tensor_nodes)
        args = tensors + scalars
        callee = self.ctx.discover(kernel, node, self, args)
        return self.call_function(callee, node, args)

    def kernel_tensor_arguments(self, kernel: RegisteredKernel, arg_nodes: list) -> list[ir.Expr]:
        symbols: dict[str, tuple[int, str]] = {}  # symbol -> (size, where it was bound)
        args = []
        for param, node in zip(kernel.tensors, arg_nodes):
            arg = self.expr(node, "an argument")
            self.check_kernel_tensor(kernel, param, arg, node, symbols)
            args.append(arg)
        return args

    def check_kernel_tensor(self, kernel: RegisteredKernel, param, arg: ir.Expr, node, symbols: dict) -> None:
        title = f"pypto.kernels.{kernel.name}"
        hint = f"its signature is {kernel.signature()} ({kernel.where()})"
        if not isinstance(arg.type, ir.TensorType):
            raise self.err(node, f"argument '{param.name}' of {title} must be a tensor, got {describe(arg.type)}",
                           hint, ParseTypeError)
        if arg.type.dtype != param.dtype:
            raise self.err(node, f"argument '{param.name}' of {title} must be {param.dtype.name}, got "
                           f"{arg.type.dtype.name} ({describe(arg.type)})",
                           f"convert it first (pl.cast) or pass a {param.dtype.name} tensor; {hint}", ParseTypeError)
        dims = list(arg.type.shape)
        if len(dims) != len(param.shape):
            raise self.err(node, f"argument '{param.name}' of {title} must have rank {len(param.shape)} "
                           f"([{', '.join(map(str, param.shape))}]), got rank {len(dims)} ({describe(arg.type)})",
                           hint, ParseValueError)
        for axis, (want, dim) in enumerate(zip(param.shape, dims)):
            if not isinstance(dim, ir.ConstInt):
                continue  # a dynamic dim: the kernel reads its size at run time
            self.check_kernel_dim(kernel, param, axis, want, dim.value, node, symbols, hint)

    def check_kernel_dim(self, kernel: RegisteredKernel, param, axis: int, want: int | str, size: int, node,
                         symbols: dict, hint: str) -> None:
        title = f"pypto.kernels.{kernel.name}"
        if isinstance(want, int):
            if size != want:
                raise self.err(node, f"dim {axis} of argument '{param.name}' of {title} must be {want}, got {size}",
                               hint, ParseValueError)
            return
        if want in symbols and symbols[want][0] != size:
            bound, where = symbols[want]
            raise self.err(node, f"dim {axis} of argument '{param.name}' of {title} is {want} = {size}, but {where} "
                           f"made {want} = {bound}", f"the sizes named {want} must agree; {hint}", ParseValueError)
        symbols.setdefault(want, (size, f"dim {axis} of '{param.name}'"))
        divisor = kernel.multiple_of.get(want)
        if divisor and size % divisor:
            raise self.err(node, f"dim {axis} of argument '{param.name}' of {title} is {want} = {size}, which is not "
                           f"a multiple of {divisor}", f"the kernel tiles {want} by {divisor}: pad the tensor to a "
                           f"multiple of {divisor}; {hint}", ParseValueError)

    def kernel_scalar_argument(self, kernel: RegisteredKernel, param, node) -> ir.Expr:
        title = f"pypto.kernels.{kernel.name}"
        value = self.value(node)
        if isinstance(value, bool) or not isinstance(value, (int, float, ir.Expr)):
            raise self.err(node, f"argument '{param.name}' of {title} must be a {param.dtype.name} scalar, got "
                           f"{value!r}", f"its signature is {kernel.signature()}", ParseTypeError)
        if isinstance(value, (int, float)):
            if param.dtype.is_float():
                return ir.ConstFloat(float(value), param.dtype, span=self.span(node))
            if isinstance(value, float):
                raise self.err(node, f"argument '{param.name}' of {title} is {param.dtype.name}, got the float "
                               f"{value!r}", "pass an integer", ParseTypeError)
            return ir.ConstInt(value, param.dtype, span=self.span(node))
        if not isinstance(value.type, ir.ScalarType) or value.type.dtype != param.dtype:
            raise self.err(node, f"argument '{param.name}' of {title} must be a {param.dtype.name} scalar, got "
                           f"{describe(value.type)}", f"its signature is {kernel.signature()}", ParseTypeError)
        return value


def registered_kernel_function(kernel: RegisteredKernel, name: str, args: list[ir.Expr], span: ir.Span) -> ir.Function:
    """The external function a call of `kernel` with `args` (already checked) runs: one parameter per
    argument with the argument's type, the manifest's directions, returning its written tensors."""
    names = kernel.param_names
    params = [ir.Var(pname, arg.type, span=span) for pname, arg in zip(names, args)]
    directions = [getattr(ir.ParamDirection, t.direction) for t in kernel.tensors] + \
        [ir.ParamDirection.In] * len(kernel.scalars)
    results = [p for p, d in zip(params, directions) if d in WRITTEN]
    body = ir.SeqStmts([ir.ReturnStmt(results, span=span)] if results else [], span=span)
    attrs = {"external_source": str(kernel.source)}
    return ir.Function(name, kernel.core_type, params, directions, [p.type for p in results], body,
                       attrs=attrs, span=span)
