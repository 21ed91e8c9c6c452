"""ConvertToSSA keeps what a program computes.

Random scalar programs that reassign a few variables in ifs, for loops and
while loops are built with the IR node bindings, converted, verified with the
SSA rules, printed and parsed back, and run before and after by a small
interpreter of the IR.
"""

import random
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir, passes

DT = ir.DataType
INDEX = ir.ScalarType(DT.INDEX)
Op = ir.BinaryOp
ARITH = {Op.Add: lambda a, b: a + b, Op.Sub: lambda a, b: a - b, Op.Mul: lambda a, b: a * b % 1009,
         Op.Lt: lambda a, b: a < b}


class Interpreter:
    """Runs the scalar subset of the IR; loop state flows through iter_args and yields when present."""

    def __init__(self):
        self.env = {}

    def run(self, fn, args):
        for param, value in zip(fn.params, args):
            self.env[param.unique_id] = value
        return self.block(fn.body)

    def expr(self, e):
        if isinstance(e, ir.ConstInt):
            return e.value
        if isinstance(e, ir.BinaryExpr):
            return ARITH[e.op](self.expr(e.lhs), self.expr(e.rhs))
        return self.env[e.unique_id]

    def block(self, s):
        """Runs `s`; returns ("yield", values), ("return", values) or None."""
        for stmt in (s.stmts if isinstance(s, ir.SeqStmts) else [s]):
            result = self.stmt(stmt)
            if result is not None:
                return result
        return None

    def bind(self, vars_, values):
        for var, value in zip(vars_, values):
            self.env[var.unique_id] = value

    def stmt(self, s):
        if isinstance(s, ir.AssignStmt):
            self.env[s.var.unique_id] = self.expr(s.value)
        elif isinstance(s, (ir.YieldStmt, ir.ReturnStmt)):
            return ("yield" if isinstance(s, ir.YieldStmt) else "return", [self.expr(v) for v in s.values])
        elif isinstance(s, ir.SeqStmts):
            return self.block(s)
        elif isinstance(s, ir.BreakStmt):
            return ("break", [])
        elif isinstance(s, ir.ScopeStmt):
            return self.block(s.body)
        elif isinstance(s, ir.IfStmt):
            body = s.then_body if self.expr(s.condition) else s.else_body
            result = self.block(body) if body is not None else None
            if result is not None and result[0] == "break":
                return result
            if s.return_vars:
                self.bind(s.return_vars, result[1])
        elif isinstance(s, ir.ForStmt):
            self.bind(s.iter_args, [self.expr(a.init_value) for a in s.iter_args])
            for i in range(self.expr(s.start), self.expr(s.stop), self.expr(s.step)):
                self.env[s.loop_var.unique_id] = i
                result = self.block(s.body)
                if result is not None and result[0] == "break":
                    break
                if s.iter_args:
                    self.bind(s.iter_args, result[1])
            self.bind(s.return_vars, [self.env[a.unique_id] for a in s.iter_args])
        elif isinstance(s, ir.WhileStmt):
            self.bind(s.iter_args, [self.expr(a.init_value) for a in s.iter_args])
            while self.expr(s.condition):
                result = self.block(s.body)
                if result is not None and result[0] == "break":
                    break
                if s.iter_args:
                    self.bind(s.iter_args, result[1])
            self.bind(s.return_vars, [self.env[a.unique_id] for a in s.iter_args])
        else:
            raise AssertionError(f"unexpected {type(s).__name__}")
        return None


class Generator:
    """Programs over params n, m and variables a, b, c (all assigned up front, then reassigned).

    Statements: assignments, block-local temporaries, ifs, for and while
    loops, InCore scopes (not nested) and, in a for loop outside any scope
    of its body, `if ...: break`.
    """

    def __init__(self, rng):
        self.rng = rng
        self.params = [ir.Var("n", INDEX), ir.Var("m", INDEX)]
        self.vars = [ir.Var(name, INDEX) for name in "abc"]
        # One loop variable per nesting depth, shared by sibling loops (a reassignment too).
        self.loop_vars = [ir.Var(f"i{d}", INDEX) for d in range(4)]
        self.counters = [ir.Var(f"w{d}", INDEX) for d in range(4)]

    def operand(self, readable):
        if self.rng.random() < 0.3:
            return ir.ConstInt(self.rng.randint(2, 5))
        return self.rng.choice(readable)

    def value(self, readable):
        # A variable first and no 0 or 1 literal: nothing the parser would fold when reading the result back.
        return ir.BinaryExpr(self.rng.choice([Op.Add, Op.Sub, Op.Mul]), self.rng.choice(readable),
                             self.operand(readable))

    def block(self, depth, readable, in_scope=False, can_break=False):
        stmts = []
        readable = list(readable)
        for _ in range(self.rng.randint(1, 4)):
            kind = self.rng.random()
            if can_break and kind < 0.05:
                cond = ir.BinaryExpr(Op.Lt, self.rng.choice(readable), ir.ConstInt(self.rng.randint(0, 9)))
                stmts.append(ir.IfStmt(cond, ir.SeqStmts([ir.BreakStmt()]), None, []))
            elif not in_scope and kind > 0.95:
                body = self.block(depth + 1, readable, in_scope=True)
                stmts.append(ir.ScopeStmt(scope_kind=ir.ScopeKind.InCore, body=body))
            elif depth >= 3 or kind < 0.45:
                target = self.rng.choice(self.vars)
                stmts.append(ir.AssignStmt(target, self.value(readable)))
            elif kind < 0.65:
                # A temporary that lives only in this block.
                tmp = ir.Var(f"t{depth}", INDEX)
                stmts.append(ir.AssignStmt(tmp, self.value(readable)))
                stmts.append(ir.AssignStmt(self.rng.choice(self.vars), self.value(readable + [tmp])))
            elif kind < 0.8:
                cond = ir.BinaryExpr(Op.Lt, self.rng.choice(readable), ir.ConstInt(self.rng.randint(0, 40)))
                else_body = self.block(depth + 1, readable, in_scope, can_break) if self.rng.random() < 0.6 else None
                stmts.append(ir.IfStmt(cond, self.block(depth + 1, readable, in_scope, can_break), else_body, []))
            elif kind < 0.92:
                i = self.loop_vars[depth]
                stop = self.rng.choice([ir.ConstInt(self.rng.randint(0, 3)), self.params[0]])
                body = self.block(depth + 1, readable + [i], in_scope, can_break=True)
                stmts.append(ir.ForStmt(i, 0, stop, 1, [], body, []))
            else:
                w = self.counters[depth]
                body = self.block(depth + 1, readable + [w], in_scope).stmts + [
                    ir.AssignStmt(w, ir.BinaryExpr(Op.Add, w, ir.ConstInt(1)))]
                stmts.append(ir.AssignStmt(w, ir.ConstInt(0)))
                stmts.append(ir.WhileStmt(condition=ir.BinaryExpr(Op.Lt, w, self.params[1]), iter_args=[],
                                          body=ir.SeqStmts(body), return_vars=[]))
        return ir.SeqStmts(stmts)

    def program(self):
        readable = self.params + self.vars
        init = [ir.AssignStmt(v, self.operand(self.params)) for v in self.vars]
        body = self.block(0, readable)
        ret = ir.ReturnStmt([ir.BinaryExpr(Op.Add, ir.BinaryExpr(Op.Mul, self.vars[0], 7),
                                           ir.BinaryExpr(Op.Add, self.vars[1], self.vars[2]))])
        fn = ir.Function("f", ir.FunctionType.Opaque, self.params, [], [INDEX],
                         ir.SeqStmts(init + body.stmts + [ret]))
        return ir.Program("random", [fn])


@pytest.fixture(scope="module")
def convert(tmp_path_factory):
    path = Path(tmp_path_factory.mktemp("ssa")) / "ssa.yaml"
    path.write_text("name: ssa\nverify: true\ninput_properties: []\npasses: [ConvertToSSA]\n")
    manager = passes.PassManager(str(path))
    return manager.run


@pytest.mark.parametrize("seed", range(200))
def test_random_programs_compute_the_same_after_conversion(seed, convert):
    program = Generator(random.Random(seed)).program()
    try:
        converted = convert(program)
    except ValueError as e:
        # The one refusal a well-formed random program can meet.
        assert "leaves the iteration early and a carried value cannot be passed on" in str(e)
        return
    assert [str(d) for d in ir.verify(converted) if d.is_error] == []
    assert convert(converted).same_as(converted)
    assert ir.structural_equal(pl.parse(ir.as_python(converted)), converted, enable_auto_mapping=True)
    for n, m in [(0, 0), (1, 2), (3, 1), (4, 3)]:
        before = Interpreter().run(program.get_function("f"), [n, m])
        after = Interpreter().run(converted.get_function("f"), [n, m])
        assert before == after, ir.as_python(converted)
