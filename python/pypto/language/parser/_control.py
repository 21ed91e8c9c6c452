"""Control flow of a kernel body: if/else with results, loops with carried values, while loops and
placement scopes. A mixin of FunctionParser: ``self`` is the parser."""

from __future__ import annotations

import ast
from typing import Any

from pypto import ir
from pypto.language._dsl import INTRINSICS as I
from pypto.language._dsl import Intrinsic
from pypto.language.errors import ParseSyntaxError, ParseTypeError, ParseValueError, PlacementError
from pypto.language.parser import _defer_wait
from pypto.language.parser._ast_util import assigned_names, intrinsic_call, ordered_union, terminates, yield_target
from pypto.language.parser._values import (CrossCoreSlotOption, Loop, SplitOption, describe, is_number, is_task_id, is_task_id_or_array,
                                           same_kind_and_dtype)

INDEX = ir.DataType.INDEX
LOOP_KINDS = {
    "range": ir.ForKind.Sequential, "parallel": ir.ForKind.Parallel,
    "unroll": ir.ForKind.Unroll, "pipeline": ir.ForKind.Pipeline,
}


class ControlFlowMixin:
    # The pl.at / pl.spmd / pl.cluster region being parsed (pld.system.defer_wait's contract), and the
    # defer_waits of a @pl.program function outside any region.
    task_region: _defer_wait.TaskRegion | None = None
    program_defer_waits: int = 0
    # The split of the pl.split_aiv region being parsed (None outside one), and of the last region of the
    # kernel, whose values pl.aic_gather brings back to the cube core.
    split_aiv_mode: ir.SplitMode | None = None
    last_split_aiv_mode: ir.SplitMode | None = None

    # ------------------------------------------------------------------ if
    def condition(self, node) -> ir.Expr:
        cond = self.expr(node, "a condition")
        if not isinstance(cond.type, ir.ScalarType):
            raise self.err(node, f"a condition must be a scalar, got {describe(cond.type)}",
                           "compare scalars, e.g. `if i < n:`", ParseTypeError)
        return cond

    def stmt_If(self, node: ast.If) -> None:
        cond = self.condition(node.test)
        before = dict(self.env)
        then_nodes, else_nodes = list(node.body), list(node.orelse)
        explicit = bool(then_nodes) and yield_target(self, then_nodes[-1]) is not None
        then_stmts, then_env, then_yield = self.branch(then_nodes, before)
        else_stmts, else_env, else_yield = self.branch(else_nodes, before) if else_nodes else ([], dict(before), None)
        span = self.span(node)
        if explicit:
            if else_yield is None:
                raise self.err(node, "when one if branch ends in pl.yield_, the other must too, with as many values",
                               cls=ParseSyntaxError)
            names, tvals, tnode = then_yield
            _, evals, enode = else_yield
            if len(tvals) != len(evals):
                raise self.err(enode, f"yield arity mismatch: the then branch yields {len(tvals)} values, the "
                               f"else branch {len(evals)}", cls=ParseValueError)
            for a, b, vn in zip(tvals, evals, enode.value.args):
                if not same_kind_and_dtype(a.type, b.type):
                    raise self.err(vn, f"yield type mismatch: {describe(b.type)} here, {describe(a.type)} in the "
                                   "then branch", cls=ParseTypeError)
            for stmts, values, yield_node in ((then_stmts, tvals, tnode), (else_stmts, evals, enode)):
                stmts.append(ir.YieldStmt(values, span=self.span(yield_node),
                                          leading_comments=self.src.take_comments(yield_node)))
            rvs = [ir.Var(n, v.type, span=span) for n, v in zip(names, tvals)]
            self.env = dict(before)
            for n, rv in zip(names, rvs):
                self.env[n] = rv
            self.emit(ir.IfStmt(cond, self.block(then_stmts, node), self.block(else_stmts, node), rvs, span=span))
            return
        if then_yield is not None or else_yield is not None:
            raise self.err(node, "when one if branch ends in pl.yield_, the other must too", cls=ParseSyntaxError)
        then_ends, else_ends = terminates(then_nodes), terminates(else_nodes)
        changed = [n for n in ordered_union(then_env, else_env)
                   if n in then_env and n in else_env
                   and (isinstance(then_env[n], ir.Expr) or isinstance(else_env[n], ir.Expr))
                   and (then_env[n] is not before.get(n) or else_env[n] is not before.get(n))]
        for env in (then_env, else_env):
            for n in changed:
                env[n] = self.to_expr(env[n], node)
        self.env = dict(before)
        if changed and (then_ends or else_ends):
            raise self.err(node, f"'{changed[0]}' is assigned in an if whose other branch ends in "
                           "return/break/continue, so it has no value there",
                           "assign it before the if, or restructure so both branches fall through",
                           ParseSyntaxError)
        rvs = []
        if changed:
            for n in changed:
                a, b = then_env[n], else_env[n]
                if not same_kind_and_dtype(a.type, b.type):
                    raise self.err(node, f"'{n}' is {describe(a.type)} in one branch and {describe(b.type)} in "
                                   "the other", "give both branches the same type", ParseTypeError)
            then_stmts.append(ir.YieldStmt([then_env[n] for n in changed], span=span))
            else_stmts.append(ir.YieldStmt([else_env[n] for n in changed], span=span))
            rvs = [ir.Var(n, then_env[n].type, span=span) for n in changed]
            for n, rv in zip(changed, rvs):
                self.env[n] = rv
        else_body = self.block(else_stmts, node) if (else_nodes or changed) else None
        self.emit(ir.IfStmt(cond, self.block(then_stmts, node), else_body, rvs, span=span))

    def branch(self, nodes: list, env: dict):
        """A branch's statements, its final names, and its trailing yield (names, values, node) if any."""
        self.env = dict(env)
        trailing = None
        body = list(nodes)
        if body and yield_target(self, body[-1]) is not None:
            last = body.pop()
            stmts = self.stmts(body)
            names, call = yield_target(self, last)
            values = [self.expr(a) for a in call.args]
            trailing = (names or [], values, last)
            return stmts, self.env, trailing
        stmts = self.stmts(body)
        return stmts, self.env, trailing

    # ------------------------------------------------------------------ loops
    def stmt_For(self, node: ast.For) -> None:
        if node.orelse:
            raise self.err(node, "for ... else is not supported in a kernel", cls=ParseSyntaxError)
        if not isinstance(node.iter, ast.Call):
            raise self.err(node.iter, "a kernel loop iterates over pl.range(...), pl.parallel(...), pl.unroll(...), "
                           "pl.pipeline(...), pl.while_(...) or pl.spmd(...)", cls=ParseSyntaxError)
        fn = self.static(node.iter.func)
        if fn is range:
            raise self.err(node.iter, "Python range() in a kernel",
                           "use pl.range(...) (or pl.parallel / pl.unroll / pl.pipeline)", ParseSyntaxError)
        if not isinstance(fn, Intrinsic) or fn.name not in (*LOOP_KINDS, "while_", "spmd", "split_aiv"):
            raise self.err(node.iter, f"cannot loop over {ast.unparse(node.iter.func)}(...) in a kernel",
                           "use pl.range(...), pl.parallel(...), pl.unroll(...), pl.pipeline(...) or pl.while_(...)",
                           ParseSyntaxError)
        if fn.name == "while_":
            self.while_loop(node)
        elif fn.name == "split_aiv":
            if not isinstance(node.target, ast.Name):
                raise self.err(node.target, "`for lane in pl.split_aiv(2, mode=...)` binds one name, the lane",
                               cls=ParseSyntaxError)
            self.split_aiv_region(node, node.iter, node.target)
        elif fn.name == "spmd":
            self.spmd_loop(node)
        else:
            self.for_loop(node, fn.name)

    def loop_bounds(self, call: ast.Call, kind: str) -> tuple[list, dict, list | None]:
        args = [self.value(a) for a in call.args]
        if not 1 <= len(args) <= 3:
            raise self.err(call, f"pl.{kind} takes (stop), (start, stop) or (start, stop, step)", cls=ParseTypeError)
        if kind == "unroll":
            for a, n in zip(args, call.args):
                if not isinstance(a, int):
                    raise self.err(n, "pl.unroll needs literal bounds: it is unrolled at compile time",
                                   "use int literals or Python constants, or pl.range for a runtime bound",
                                   ParseValueError)
        if len(args) == 1:
            args = [0, args[0], 1]
        elif len(args) == 2:
            args = [args[0], args[1], 1]
        attrs, inits = {}, None
        for k in call.keywords:
            if k.arg == "init_values":
                if not isinstance(k.value, (ast.Tuple, ast.List)):
                    raise self.err(k.value, "init_values takes a tuple, e.g. init_values=(x,)", cls=ParseSyntaxError)
                inits = [(self.value(e), e) for e in k.value.elts]
            elif k.arg is None:
                attrs.update(self.static(k.value))
            else:
                attrs[k.arg] = self.attr_value(k.value)
        return args, attrs, inits

    def for_loop(self, node: ast.For, kind: str) -> None:
        call = node.iter
        (start, stop, step), attrs, inits = self.loop_bounds(call, kind)
        if kind == "pipeline" and "stage" not in attrs:
            raise self.err(call, "pl.pipeline needs stage=", "e.g. pl.pipeline(0, n, 1, stage=2)", ParseTypeError)
        target = node.target
        carry_names = None
        if inits is not None:
            if not (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)
                    and isinstance(target.elts[1], ast.Tuple)):
                raise self.err(target, "with init_values, the target is `i, (a, b)`", cls=ParseSyntaxError)
            loop_name = target.elts[0].id
            carry_names = [e.id for e in target.elts[1].elts]
            if len(carry_names) != len(inits):
                raise self.err(target.elts[1], f"{len(carry_names)} loop-carried names for {len(inits)} init_values",
                               cls=ParseValueError)
        elif isinstance(target, ast.Name):
            loop_name = target.id
        else:
            raise self.err(target, "the loop variable must be a name", cls=ParseSyntaxError)
        span = self.span(node)
        loop_var = ir.Var(loop_name, ir.ScalarType(INDEX), span=self.span(target))
        exprs = [self.to_expr(x, call) for x in (start, stop, step)]
        for_kind = LOOP_KINDS[kind]
        self.loop_body(node, for_kind.name, loop_var, carry_names, inits,
                       lambda iter_args, body, rvs: ir.ForStmt(loop_var, *exprs, iter_args, body, rvs, for_kind,
                                                               attrs, span=span))

    def loop_body(self, node, kind: str, loop_var, carry_names, inits, make, cond_node=None) -> None:
        """Shared by for and while loops: iter_args (explicit or inferred), the body, its yield."""
        before = dict(self.env)
        body_nodes = list(node.body)
        explicit = carry_names is not None
        if explicit:
            init_exprs = [self.to_expr(v, n) for v, n in inits]
            names = carry_names
        else:
            assigned = assigned_names(body_nodes)
            names = [n for n in assigned if n != getattr(loop_var, "name_hint", None)
                     and (isinstance(before.get(n), ir.Expr) or n in before and is_number(before[n]))]
            init_exprs = [self.to_expr(before[n], node) for n in names]
        iter_args = [ir.IterArg(n, e.type, e, span=self.span(node)) for n, e in zip(names, init_exprs)]
        self.env = dict(before)
        if loop_var is not None:
            self.env[loop_var.name_hint] = loop_var
        for n, ia in zip(names, iter_args):
            self.env[n] = ia
        cond = None
        if cond_node is not None:
            cond = cond_node(self)
            body_nodes = body_nodes[1:] if explicit else body_nodes
        self.loops.append(Loop(kind, dict(zip(names, iter_args))))
        self.blocks.append([])
        trailing = None
        if explicit and body_nodes and yield_target(self, body_nodes[-1]) is not None:
            trailing = body_nodes.pop()
        for s in body_nodes:
            self.stmt(s)
        if explicit and trailing is None and iter_args:
            raise self.err(node, "a loop with init_values must end with `x = pl.yield_(...)`, one value per "
                           "loop-carried name", cls=ParseSyntaxError)
        if explicit and trailing is not None:
            targets, call = yield_target(self, trailing)
            values = [self.expr(a) for a in call.args]
            if len(values) != len(iter_args):
                raise self.err(trailing, f"yield arity mismatch: pl.yield_ gives {len(values)} values but the loop "
                               f"carries {len(iter_args)}", cls=ParseValueError)
            rv_names = targets or names
            if len(rv_names) != len(values):
                raise self.err(trailing, f"{len(rv_names)} names for {len(values)} yielded values", cls=ParseValueError)
            yield_span = self.span(trailing)
        else:
            values = [self.env[n] for n in names]
            rv_names = names
            yield_span = self.span(node)
        value_nodes = call.args if explicit and trailing is not None else [None] * len(names)
        for n, v, ia, vn in zip(names, values, iter_args, value_nodes):
            if not same_kind_and_dtype(v.type, ia.type):
                raise self.err(vn or node, f"yield type mismatch: '{n}' enters the loop as {describe(ia.type)} and is "
                               f"yielded as {describe(v.type)}", "keep a loop-carried value's type", ParseTypeError)
        if iter_args or (explicit and trailing is not None):
            comments = self.src.take_comments(trailing) if trailing is not None else []
            self.emit(ir.YieldStmt(values, span=yield_span, leading_comments=comments))
        stmts = self.blocks.pop()
        self.loops.pop()
        body = self.block(stmts, node)
        self.env = dict(before)
        rvs = [ir.Var(n, ia.type, span=self.span(node)) for n, ia in zip(rv_names, iter_args)]
        for n, rv in zip(rv_names, rvs):
            self.env[n] = rv
        stmt = make(iter_args, body, rvs) if cond is None else make(cond, iter_args, body, rvs)
        self.emit(stmt)

    def while_loop(self, node: ast.For) -> None:
        call = node.iter
        inits = None
        for k in call.keywords:
            if k.arg == "init_values" and isinstance(k.value, (ast.Tuple, ast.List)):
                inits = [(self.value(e), e) for e in k.value.elts]
            else:
                raise self.err(k, "pl.while_ takes init_values=(...) only", cls=ParseTypeError)
        if inits is None or call.args:
            raise self.err(call, "pl.while_ takes init_values=(...)",
                           "write `for (x,) in pl.while_(init_values=(x0,)):`", ParseTypeError)
        target = node.target
        if not isinstance(target, ast.Tuple) or not all(isinstance(e, ast.Name) for e in target.elts):
            raise self.err(target, "a pl.while_ loop binds a tuple of names: `for (x, y) in pl.while_(...)`",
                           cls=ParseSyntaxError)
        names = [e.id for e in target.elts]
        if len(names) != len(inits):
            raise self.err(target, f"{len(names)} names for {len(inits)} init_values", cls=ParseValueError)
        first = node.body[0] if node.body else None
        if first is None or intrinsic_call(self, first) is not I["cond"]:
            raise self.err(first or node, "pl.cond(...) must be the first statement of a pl.while_ body",
                           "start the body with pl.cond(<condition on the loop-carried names>)", ParseSyntaxError)

        def cond_of(p: "FunctionParser"):
            c = first.value
            if len(c.args) != 1:
                raise p.err(c, "pl.cond takes one condition", cls=ParseTypeError)
            return p.condition(c.args[0])

        span = self.span(node)
        self.loop_body(node, "While", None, names, inits,
                       lambda cond, ia, body, rvs: ir.WhileStmt(condition=cond, iter_args=ia, body=body,
                                                                return_vars=rvs, span=span), cond_node=cond_of)

    def stmt_While(self, node: ast.While) -> None:
        if node.orelse:
            raise self.err(node, "while ... else is not supported in a kernel", cls=ParseSyntaxError)
        span = self.span(node)
        self.loop_body(node, "While", None, None, None,
                       lambda cond, ia, body, rvs: ir.WhileStmt(condition=cond, iter_args=ia, body=body,
                                                                return_vars=rvs, span=span),
                       cond_node=lambda p: p.condition(node.test))

    # ------------------------------------------------------------------ scopes
    def scope_kwargs(self, call: ast.Call) -> tuple[dict, dict]:
        """The scope's keywords, and the attrs spelled ``**{...}`` (keys that clash with a keyword)."""
        out, extra = {}, {}
        for k in call.keywords:
            if k.arg is None:
                extra.update({key: self.normalize_attr(v, k.value) for key, v in self.static(k.value).items()})
            elif k.arg == "deps":
                out["deps"] = self.deps(k.value)
            else:
                out[k.arg] = self.attr_value(k.value)
        return out, extra

    def deps(self, node: ast.AST) -> list:
        """``deps=[...]``: TaskId scalars, TASK_ID array elements or whole TASK_ID arrays; None is dropped."""
        if not isinstance(node, (ast.List, ast.Tuple)):
            raise self.err(node, "deps= takes a list of task ids", "write deps=[tid] or deps=[tids]", ParseTypeError)
        entries = []
        for e in node.elts:
            if isinstance(e, ast.Constant) and e.value is None:
                continue
            v = self.value(e)
            if not isinstance(v, ir.Expr) or not is_task_id_or_array(v.type):
                what = describe(v.type) if isinstance(v, ir.Expr) else repr(v)
                raise self.err(e, f"a deps= entry must be a task id (pl.Scalar[pl.TASK_ID]) or an array of them, "
                               f"got {what}", "bind a scope's task id with `with pl.at(...) as tid:` and pass "
                               "deps=[tid], or collect task ids in pl.array.create(n, pl.TASK_ID)", ParseTypeError)
            entries.append(v)
        return entries

    def task_id_target(self, item: ast.withitem, fn_name: str, level: ir.Level | None) -> str | None:
        """The name of ``as tid``, where the scope is one task (pl.at at CORE_GROUP, pl.spmd)."""
        target = item.optional_vars
        if target is None:
            return None
        if not isinstance(target, ast.Name):
            raise self.err(target, "`as` binds one name, the scope's task id", "write `as tid`", ParseSyntaxError)
        if fn_name == "cluster":
            raise self.err(target, "pl.cluster() is not a task and has no task id",
                           "drop `as ...`; bind the task id of a pl.at(level=pl.Level.CORE_GROUP) or pl.spmd scope",
                           ParseSyntaxError)
        if fn_name == "at" and level != ir.Level.CORE_GROUP:
            raise self.err(target, f"only pl.at(level=pl.Level.CORE_GROUP) is a task with a task id, not level "
                           f"{level.name}", "drop `as ...`, or bind the task id of a CORE_GROUP scope",
                           ParseSyntaxError)
        old = self.env.get(target.id)
        if isinstance(old, ir.Expr) and not is_task_id(old.type):
            raise self.err(target, f"'{target.id}' was {describe(old.type)} and is rebound as a task id",
                           "a name keeps its type; use a new name for the task id", ParseTypeError)
        return target.id

    def stmt_With(self, node: ast.With) -> None:
        if len(node.items) != 1:
            raise self.err(node, "one scope per with statement", cls=ParseSyntaxError)
        item = node.items[0]
        call = item.context_expr
        fn = self.static(call.func) if isinstance(call, ast.Call) else None
        if not isinstance(fn, Intrinsic) or fn.name not in ("at", "spmd", "cluster", "manual_scope", "split_aiv"):
            raise self.err(call, "a kernel's with statement opens pl.at(...), pl.spmd(...), pl.cluster(), "
                           "pl.manual_scope() or pl.split_aiv(...)", cls=ParseSyntaxError)
        if fn.name == "split_aiv":
            if item.optional_vars is not None:
                raise self.err(item.optional_vars, "pl.split_aiv binds its lane with the for form",
                               "write `for lane in pl.split_aiv(2, mode=...):`", ParseSyntaxError)
            self.split_aiv_region(node, call, None)
            return
        if fn.name == "manual_scope":
            self.manual_scope(node, item, call)
            return
        # `as tid` names the task the scope submits: it is unbound in the scope's own deps= and body.
        pending = item.optional_vars.id if isinstance(item.optional_vars, ast.Name) else None
        outer = self.pending_task_ids.get(pending)
        if pending is not None:
            self.pending_task_ids[pending] = node
        try:
            self.scope_stmt(node, item, call, fn)
        finally:
            if outer is not None:
                self.pending_task_ids[pending] = outer
            else:
                self.pending_task_ids.pop(pending, None)

    def split_aiv_region(self, node: ast.For | ast.With, call: ast.Call, lane: ast.Name | None) -> None:
        """``for lane in pl.split_aiv(2, mode=...)``: code both AIV lanes of a hand-split mixed kernel run, `lane`
        being pl.tile.get_subblock_idx(). The printed form is ``with pl.split_aiv(...)`` whose body binds the lane."""
        args = [self.static(a) for a in call.args]
        kwargs = {k.arg: self.static(k.value) for k in call.keywords if k.arg}
        if args[:1] != [2] or len(args) > 1 or set(kwargs) - {"mode"}:
            raise self.err(call, "pl.split_aiv takes the lane count 2 and mode=", "write pl.split_aiv(2, "
                           "mode=pl.SplitMode.UP_DOWN)", ParseTypeError)
        mode = kwargs.get("mode", ir.SplitMode.NONE)
        if not isinstance(mode, ir.SplitMode):
            raise self.err(call, f"mode= must be a pl.SplitMode, got {mode!r}", cls=ParseTypeError)
        if self.plane != "incore":
            raise self.err(call, "pl.split_aiv splits the vector work of a kernel across the AIV lanes, so it "
                           "belongs inside a pl.at(level=pl.Level.CORE_GROUP) scope or an InCore function",
                           cls=PlacementError)
        if self.split_aiv_mode is not None:
            raise self.err(call, "pl.split_aiv regions do not nest", cls=ParseSyntaxError)
        self.split_aiv_mode = mode
        try:
            self.blocks.append([])
            if lane is not None:
                self.bind(lane.id, self.make_op("tile.get_subblock_idx", [], {}, lane), lane)
            for s in node.body:
                self.stmt(s)
            stmts = self.blocks.pop()
        finally:
            self.split_aiv_mode = None
        self.last_split_aiv_mode = mode
        self.emit(ir.ScopeStmt(scope_kind=ir.ScopeKind.SplitAiv, body=self.block(stmts, node), split=mode,
                               span=self.span(node)))

    def manual_scope(self, node: ast.With, item: ast.withitem, call: ast.Call) -> None:
        """``with pl.manual_scope():``: the runtime derives no dependencies for the tasks inside."""
        if item.optional_vars is not None:
            raise self.err(item.optional_vars, "pl.manual_scope() is not a task and has no task id",
                           "drop `as ...`", ParseSyntaxError)
        if call.args or call.keywords:
            raise self.err(call, "pl.manual_scope() takes no arguments", cls=ParseTypeError)
        if self.plane == "incore":
            raise self.err(call, "pl.manual_scope() orders tasks, so it belongs to orchestration code, not a kernel",
                           "move it out of the InCore scope or function", PlacementError)
        stmts = self.stmts(node.body)
        self.emit(ir.ScopeStmt(scope_kind=ir.ScopeKind.Runtime, body=self.block(stmts, node), span=self.span(node)))

    def scope_stmt(self, node: ast.With, item: ast.withitem, call: ast.Call, fn: Intrinsic) -> None:
        kw, extra = self.scope_kwargs(call)
        args = [self.value(a) for a in call.args]
        scope: dict[str, Any] = {}
        name_hint = kw.pop("name_hint", "")
        plane = self.plane
        if fn.name == "at":
            level = args[0] if args else kw.pop("level", None)
            if not isinstance(level, ir.Level):
                raise self.err(call, "pl.at needs level=pl.Level.<LEVEL>", cls=ParseTypeError)
            kw.pop("level", None)
            role = args[1] if len(args) > 1 else kw.pop("role", None)
            split = ir.SplitMode.NONE
            for opt in kw.pop("optimizations", []) or []:
                if isinstance(opt, SplitOption):
                    split = opt.mode
                    if opt.slot_num is not None:
                        extra["cross_core_slot"] = opt.slot_num
                elif isinstance(opt, CrossCoreSlotOption):
                    extra["cross_core_slot"] = opt.slot_num
                else:
                    raise self.err(call, f"unknown optimization {opt!r}",
                                   "use pl.split(pl.SplitMode.UP_DOWN) or pl.cross_core_slot(slot_num=N)",
                                   ParseValueError)
            if level == ir.Level.CORE_GROUP:
                kind = ir.ScopeKind.InCore
                plane = "incore"
                scope.update(split=split)
                if role is not None:
                    raise self.err(call, "role= applies to levels other than CORE_GROUP", cls=ParseValueError)
            else:
                kind = ir.ScopeKind.Hierarchy
                scope.update(level=level, role=role)
        elif fn.name == "spmd":
            core_num = args[0] if args else kw.pop("core_num", None)
            if core_num is None:
                raise self.err(call, "pl.spmd needs the number of blocks: pl.spmd(8)", cls=ParseTypeError)
            kind = ir.ScopeKind.Spmd
            scope.update(core_num=self.to_expr(core_num, call), sync_start=bool(kw.pop("sync_start", False)))
        else:
            kind = ir.ScopeKind.Cluster
        tid_name = self.task_id_target(item, fn.name, scope.get("level", ir.Level.CORE_GROUP))
        if fn.name == "spmd" and "deps" in kw and tid_name is None:
            raise self.err(call, "pl.spmd() does not accept 'deps=' here",
                           "bind the scope's task id: `with pl.spmd(n, deps=[...]) as tid:`", ParseTypeError)
        saved = self.plane
        self.plane = plane if self.plane != "any" else "any"
        region = _defer_wait.TaskRegion(node, fn.name, scope.get("level", ir.Level.CORE_GROUP) if fn.name == "at"
                                        else None, kw.get("allow_early_resolve"), scope.get("split"),
                                        self.task_region)
        self.task_region = region
        try:
            stmts = self.stmts(node.body)
        finally:
            self.plane = saved
            self.task_region = region.outer
        if region.defer_waits:
            _defer_wait.check_region(self, region)
        task_id = None
        if tid_name is not None:
            task_id = ir.Var(tid_name, ir.ScalarType(ir.DataType.TASK_ID), span=self.span(item.optional_vars))
        self.emit(ir.ScopeStmt(scope_kind=kind, body=self.block(stmts, node), name_hint=name_hint,
                               attrs={**kw, **extra}, task_id=task_id,
                               span=self.span(node), **{k: v for k, v in scope.items() if v is not None}))
        if task_id is not None:
            self.env[tid_name] = task_id

    def spmd_loop(self, node: ast.For) -> None:
        """``for i in pl.spmd(n):``: an Spmd scope whose body, an InCore region, reads its block index
        as ``i``."""
        call = node.iter
        if not isinstance(node.target, ast.Name):
            raise self.err(node.target, "`for i in pl.spmd(n)` binds one name", cls=ParseSyntaxError)
        kw, extra = self.scope_kwargs(call)
        if "deps" in kw:
            raise self.err(call, "pl.spmd() does not accept 'deps=' here",
                           "use the with form and bind its task id: `with pl.spmd(n, deps=[...]) as tid:`",
                           ParseTypeError)
        args = [self.value(a) for a in call.args]
        core_num = args[0] if args else kw.pop("core_num", None)
        if core_num is None:
            raise self.err(call, "pl.spmd needs the number of blocks: pl.spmd(8)", cls=ParseTypeError)
        name_hint = kw.pop("name_hint", "")
        sync = bool(kw.pop("sync_start", False))
        saved = self.plane
        self.plane = "incore" if saved != "any" else "any"
        try:
            self.blocks.append([])
            idx = self.make_op("tile.get_block_idx", [], {}, node.target)
            self.bind(node.target.id, idx, node.target)
            for s in node.body:
                self.stmt(s)
            stmts = self.blocks.pop()
        finally:
            self.plane = saved
        region = ir.ScopeStmt(scope_kind=ir.ScopeKind.InCore, body=self.block(stmts, node), span=self.span(node))
        self.emit(ir.ScopeStmt(scope_kind=ir.ScopeKind.Spmd, body=self.block([region], node), name_hint=name_hint,
                               core_num=self.to_expr(core_num, call), sync_start=sync, attrs={**kw, **extra},
                               span=self.span(node)))
