"""The parser: DSL source (Python functions and classes, or printed text) to ``pypto.ir``.

Entry points:
  parse_function(spec)             a module-level ``@pl.function``
  parse_program_class(cls)         a ``@pl.program`` class
  parse(text) / loads(path)        printer output or hand-written DSL text
  parse_jit(entry, param_types=, scalar_values=, program_name=)   a ``@pl.jit`` entry and the
                                   sub-functions it calls
"""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path
from typing import Any

from pypto import ir
from pypto.language._dsl import FunctionSpec
from pypto.language.errors import ParseError, ParseSyntaxError, ParseTypeError
from pypto.kernels import RegisteredKernel
from pypto.language.parser._builder import Callee, Context, FunctionParser
from pypto.language.parser._external import registered_kernel_function
from pypto.language.parser._source import Source

__all__ = ["ParseError", "loads", "parse", "parse_function", "parse_jit", "parse_program_class"]

JIT_KINDS = {
    "orchestration": ir.FunctionType.Orchestration,
    "incore": ir.FunctionType.InCore,
    "inline": ir.FunctionType.Inline,
    "opaque": ir.FunctionType.Opaque,
    "host": ir.FunctionType.Opaque,
}


def _globals_of(fn, caller_locals: dict | None = None) -> dict:
    """What names in ``fn`` can mean: its module, the locals where it was defined, its closure."""
    scope = {**fn.__globals__, **(caller_locals or {})}
    scope.update(inspect.getclosurevars(fn).nonlocals)
    return scope


def _with_external_source(spec: FunctionSpec) -> FunctionSpec:
    if spec.external_source is not None:
        spec.attrs = {**spec.attrs, "external_source": spec.external_source}
    return spec


def parse_function(spec: FunctionSpec, caller_locals: dict | None = None) -> ir.Function:
    src = Source.of_object(spec.fn)
    node = src.tree.body[0]
    return FunctionParser(src, node, _with_external_source(spec), _globals_of(spec.fn, caller_locals)).parse()


class _ProgramParser:
    """Parses the methods of one program: signatures first (so ``self.f`` calls resolve), then
    bodies; a method without a return annotation is parsed on first call to learn its results."""

    def __init__(self, source: Source, class_node: ast.ClassDef, methods: list[tuple[FunctionSpec, ast.FunctionDef]],
                 globals_: dict):
        self.src = source
        self.class_node = class_node
        self.methods = {spec.name if spec.fn else node.name: (spec, node) for spec, node in methods}
        self.globals = globals_
        self.context = Context(callees=self)
        self.functions: dict[str, ir.Function] = {}
        self.signatures: dict[str, Callee] = {}
        self.in_progress: set[str] = set()

    def parser(self, name: str) -> FunctionParser:
        spec, node = self.methods[name]
        return FunctionParser(self.src, node, _with_external_source(spec), self.globals, self.context,
                              is_method=True, name=name)

    def get(self, name: str) -> Callee | None:
        if name not in self.methods:
            return None
        if name in self.signatures:
            return self.signatures[name]
        probe = self.parser(name)
        params, _, returns = probe.signature()
        if returns is None:
            if name in self.in_progress:
                raise probe.err(probe.node, f"'{name}' calls itself before its results are known",
                                f"annotate its return type: def {name}(...) -> pl.Tensor[...]", ParseTypeError)
            returns = list(self.function(name).return_types)
        callee = Callee(name, [p.type for p in params], [p.name_hint for p in params], returns, list(params))
        self.signatures[name] = callee
        return callee

    def function(self, name: str) -> ir.Function:
        if name not in self.functions:
            self.in_progress.add(name)
            self.functions[name] = self.parser(name).parse()
            self.in_progress.discard(name)
        return self.functions[name]

    def program(self, program_name: str) -> ir.Program:
        for name in self.methods:
            self.get(name)
        return ir.Program(program_name, [self.function(name) for name in self.methods],
                          span=self.src.span(self.class_node))


def parse_program_class(cls: type, caller_locals: dict | None = None) -> ir.Program:
    src = Source.of_object(cls)
    class_node = src.tree.body[0]
    if caller_locals is None:
        frame = sys._getframe(2)
        caller_locals = dict(frame.f_locals)
    module = sys.modules.get(cls.__module__)
    scope = dict(caller_locals)
    if module is not None:
        scope = {**vars(module), **caller_locals}
    methods = []
    for stmt in class_node.body:
        if isinstance(stmt, ast.FunctionDef):
            spec = cls.__dict__.get(stmt.name)
            if not isinstance(spec, FunctionSpec):
                raise src.error(stmt, f"method '{stmt.name}' of a @pl.program class needs @pl.function",
                                "decorate it with @pl.function(type=pl.FunctionType...)", ParseSyntaxError)
            methods.append((spec, stmt))
    return _ProgramParser(src, class_node, methods, scope).program(cls.__name__)


# ---------------------------------------------------------------------- text
def _module_scope(src: Source) -> tuple[dict, list]:
    """Module-level names of DSL text (the pl import, dynamic dims, aliases) and its other statements."""
    import pypto.language as pl
    scope: dict[str, Any] = {}
    rest = []
    evaluator = None
    for stmt in src.tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name == "pypto.language":
                    scope[alias.asname or "pypto"] = pl if alias.asname else sys.modules["pypto"]
                elif alias.name == "pypto.language.distributed" and alias.asname:
                    import pypto.language.distributed as pld
                    scope[alias.asname] = pld
        elif isinstance(stmt, ast.ImportFrom) and stmt.module == "pypto":
            for alias in stmt.names:
                if alias.name == "language":
                    scope[alias.asname or "language"] = pl
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            evaluator = evaluator or _static_evaluator(src, scope)
            scope[stmt.targets[0].id] = evaluator.static(stmt.value)
        else:
            rest.append(stmt)
    return scope, rest


def _static_evaluator(src: Source, scope: dict) -> FunctionParser:
    dummy = ast.FunctionDef(name="<module>", args=ast.arguments([], [], None, [], [], None, []), body=[],
                            decorator_list=[], returns=None, type_comment=None, lineno=1, col_offset=0)
    return FunctionParser(src, dummy, FunctionSpec(fn=None), scope)


def _function_spec(src: Source, node: ast.FunctionDef, scope: dict) -> FunctionSpec | None:
    import pypto.language as pl
    evaluator = _static_evaluator(src, scope)
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if evaluator.static(target) is not pl.function:
            continue
        spec = FunctionSpec(fn=None)
        if isinstance(deco, ast.Call):
            for k in deco.keywords:
                value = evaluator.static(k.value)
                if k.arg == "type":
                    spec.func_type = value
                elif k.arg in ("level", "role", "external_source"):
                    setattr(spec, k.arg, value)
                else:
                    raise src.error(k, f"@pl.function has no keyword '{k.arg}'",
                                    "use type=, level=, role= or external_source=", ParseTypeError)
        return spec
    return None


def parse(text: str, filename: str = "<string>") -> ir.Program:
    """A program from DSL text: what ``ir.as_python`` prints, or the same form written by hand."""
    src = Source.of_text(text, filename)
    scope, rest = _module_scope(src)
    import pypto.language as pl
    evaluator = _static_evaluator(src, scope)
    for stmt in rest:
        if isinstance(stmt, ast.ClassDef) and any(evaluator.static(d) is pl.program for d in stmt.decorator_list):
            methods = []
            for m in stmt.body:
                if isinstance(m, ast.Pass) or (isinstance(m, ast.Expr) and isinstance(m.value, ast.Constant)):
                    continue
                spec = _function_spec(src, m, scope) if isinstance(m, ast.FunctionDef) else None
                if spec is None:
                    raise src.error(m, "a @pl.program class holds @pl.function methods only", cls=ParseSyntaxError)
                methods.append((spec, m))
            name = _program_name(src) or stmt.name
            return _ProgramParser(src, stmt, methods, scope).program(name)
    raise ParseError("no @pl.program class in the text", filename, 0, hint="the text should hold one "
                     "`@pl.program` class, as ir.as_python prints it")


def _program_name(src: Source) -> str | None:
    for line in src.lines[:3]:
        if line.startswith("# pypto.program: "):
            return line[len("# pypto.program: "):].strip()
    return None


def loads(path: str | Path) -> ir.Program:
    """A program from a file of DSL text."""
    path = Path(path)
    return parse(path.read_text(), str(path))


# ---------------------------------------------------------------------- JIT
def _is_jit_function(obj: Any) -> bool:
    return hasattr(obj, "fn") and hasattr(obj, "kind") and getattr(obj, "kind", None) in (*JIT_KINDS, "extern")


def _jit_function_type(entry) -> ir.FunctionType:
    """The function type of a @pl.jit-family function; an @pl.jit.extern kernel's is its core_type's."""
    if entry.kind == "extern":
        from pypto.jit.decorators import EXTERN_CORE_TYPES  # pypto.jit imports the language lazily too
        return EXTERN_CORE_TYPES[entry.options["core_type"]]
    return JIT_KINDS[entry.kind]


class _JitProgram:
    """A @pl.jit entry and the sub-functions it reaches by name."""

    def __init__(self) -> None:
        self.functions: dict[str, ir.Function] = {}
        self.callees: dict[str, Callee] = {}
        self.owners: dict[str, Any] = {}

    def context(self) -> Context:
        return Context(callees={}, discover=self.discover)

    @staticmethod
    def spec_of(entry) -> FunctionSpec:
        level, role = entry.level, None
        if entry.kind == "host":
            level, role = level or ir.Level.HOST, ir.Role.Orchestrator
        spec = FunctionSpec(entry.fn, _jit_function_type(entry), level, role, entry.external_source)
        if entry.options.get("include_dirs"):
            spec.attrs = {"include_dirs": list(entry.options["include_dirs"])}
        return _with_external_source(spec)

    def discover(self, obj: Any, node: ast.Call, caller: FunctionParser, args: list) -> Callee | None:
        if isinstance(obj, RegisteredKernel):
            return self.registered_kernel(obj, caller, node, args)
        if not _is_jit_function(obj):
            return None
        name = obj.fn.__name__
        if obj.kind == "orchestration":
            raise caller.err(node, f"'{name}' is a @pl.jit entry; a @pl.jit function does not call another one",
                             f"make '{name}' a sub-function: @pl.jit.incore, @pl.jit.inline or @pl.jit.opaque",
                             ParseTypeError)
        if name in self.callees:
            if self.owners[name] is not obj:
                raise caller.err(node, f"two different sub-functions are named '{name}'",
                                 "rename one of them", ParseTypeError)
            return self.checked_external_call(obj, self.callees[name], caller, node, args)
        params = list(inspect.signature(obj.fn).parameters)
        arg_types = {pname: a.type for pname, a in zip(params, args)}
        src = Source.of_object(obj.fn)
        parser = FunctionParser(src, src.tree.body[0], self.spec_of(obj), _globals_of(obj.fn), self.context(),
                                param_types=arg_types, jit=True)
        self.owners[name] = obj
        callee = self.add(name, obj, parser.parse())
        return self.checked_external_call(obj, callee, caller, node, args)

    def checked_external_call(self, obj: Any, callee: Callee, caller: FunctionParser, node: ast.Call,
                              args: list) -> Callee:
        """An external kernel's C++ code writes what its signature says, so its written arguments are checked
        here (the DSL's own kernels are checked by what their bodies do)."""
        if obj.external_source is not None:
            function = self.functions[callee.name]
            written = [d != ir.ParamDirection.In for d in function.param_directions]
            caller.check_written_arguments(callee.name, callee.param_names, written, args, node.args)
        return callee

    def add(self, name: str, owner: Any, function: ir.Function) -> Callee:
        callee = Callee(name, [p.type for p in function.params], [p.name_hint for p in function.params],
                        list(function.return_types), list(function.params))
        self.functions[name] = function
        self.callees[name] = callee
        self.owners[name] = owner
        return callee

    def registered_kernel(self, kernel: RegisteredKernel, caller: FunctionParser, node: ast.Call,
                          args: list) -> Callee:
        """The program's function for a call of a kernel plugin's kernel: one per kernel and argument types,
        named after the kernel (then <kernel>_1, <kernel>_2, ... for other argument types)."""
        arg_types = [ir.as_python(a.type) for a in args]
        for name, function in self.functions.items():
            if self.owners.get(name) == kernel and [ir.as_python(p.type) for p in function.params] == arg_types:
                return self.callees[name]
        name, n = kernel.name, 0
        while name in self.functions or name in self.callees:
            n += 1
            name = f"{kernel.name}_{n}"
        return self.add(name, kernel, registered_kernel_function(kernel, name, args, caller.span(node)))


def parse_jit(entry, *, param_types: dict[str, ir.Type], scalar_values: dict[str, object],
              program_name: str) -> ir.Program:
    """The program of one specialization of a ``@pl.jit`` entry.

    ``entry`` is a ``pypto.jit.JITFunction`` (``.fn``, ``.kind``, ``.level``, ``.external_source``,
    ``.options``). Bare ``pl.Tensor`` parameters take their types from ``param_types``; parameters
    named in ``scalar_values`` become constants of those values. Sub-functions (``@pl.jit.incore``,
    ``.opaque``) called by name are parsed with the argument types of their call and added to the
    program; ``@pl.jit.inline`` ones are spliced into the caller. A ``@pl.jit.host`` entry dispatches
    ``@pl.jit`` (orchestration) functions by name (``system.dispatch``); they are compiled on their own.
    """
    jit = _JitProgram()
    src = Source.of_object(entry.fn)
    parser = FunctionParser(src, src.tree.body[0], jit.spec_of(entry), _globals_of(entry.fn), jit.context(),
                            param_types=param_types, scalar_values=scalar_values, jit=True)
    main = parser.parse()
    return ir.Program(program_name, [main, *jit.functions.values()], span=src.span(src.tree.body[0]))
