"""A stand-in for pypto.language.parser.parse_jit that builds real IR from what the JIT hands it.

Each call is recorded. The entry becomes a function whose parameters have
the types the JIT derived (scalars become scalar parameters); its body binds
a dead constant product, which the default pipeline's Simplify removes, so
the pass dumps show a real change. Each discovered dependency becomes an
empty function of its own kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pypto import ir

FUNCTION_TYPES = {
    "orchestration": ir.FunctionType.Orchestration,
    "incore": ir.FunctionType.InCore,
    "inline": ir.FunctionType.Inline,
    "opaque": ir.FunctionType.Opaque,
    "host": ir.FunctionType.Orchestration,
}
DIRECTIONS = {"In": ir.ParamDirection.In, "Out": ir.ParamDirection.Out, "InOut": ir.ParamDirection.InOut}


@dataclass
class ParseCall:
    entry: Any
    param_types: dict[str, ir.Type]
    scalar_values: dict[str, object]
    program_name: str


@dataclass
class FakeParser:
    calls: list[ParseCall] = field(default_factory=list)

    def parse_jit(self, entry: Any, *, param_types: dict[str, ir.Type], scalar_values: dict[str, object],
                  program_name: str) -> ir.Program:
        self.calls.append(ParseCall(entry, dict(param_types), dict(scalar_values), program_name))
        functions = [self._entry_function(entry, param_types, scalar_values)]
        functions += [self._empty_function(dep) for dep in entry.dependencies()]
        return ir.Program(program_name, functions)

    @staticmethod
    def _entry_function(entry: Any, param_types: dict[str, ir.Type], scalar_values: dict[str, object]) -> ir.Function:
        params, directions = [], []
        for spec in entry.param_specs():
            if spec.name in param_types:
                params.append(ir.Var(spec.name, param_types[spec.name]))
            else:
                dtype = ir.DataType.FP32 if isinstance(scalar_values[spec.name], float) else ir.DataType.INDEX
                params.append(ir.Var(spec.name, ir.ScalarType(dtype)))
            directions.append(DIRECTIONS[spec.direction])
        waste = ir.Var("waste", ir.ScalarType(ir.DataType.INDEX))
        body = ir.SeqStmts([ir.AssignStmt(waste, ir.BinaryExpr(ir.BinaryOp.Mul, 3, 4)), ir.ReturnStmt([])])
        return ir.Function(entry.__name__, FUNCTION_TYPES[entry.kind], params, directions, [], body)

    @staticmethod
    def _empty_function(dep: Any) -> ir.Function:
        return ir.Function(dep.__name__, FUNCTION_TYPES[dep.kind], [], [], [], ir.SeqStmts([ir.ReturnStmt([])]))
