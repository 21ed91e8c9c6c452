// Prints IR as the Python DSL (`@pl.program` class form). The output is
// stable (same IR, same text), always valid Python, and is what the front
// end's parser reads back: printing, parsing and printing again gives the
// same text.
//
// The spelling, with P standing for PrintOptions::prefix ("pl"):
//
// Module
//   # pypto.program: <name>        the Program's name, on one line
//   import pypto.language as P
//   N = P.dynamic("N")             one line per dynamic dim: a scalar Var that a printed type of
//                                  some function mentions but that function never binds;
//                                  `P.dynamic("M", P.INT64)` when its dtype is not INDEX. The
//                                  string is the Var's name hint, the left side its printed name.
//   @P.program
//   class <name>:                  the name made a module-level identifier; methods in name
//                                  order, one blank line apart; `pass` when empty
//
// Functions
//   @P.function(type=P.FunctionType.InCore, level=P.Level.CHIP, role=P.Role.Orchestrator)
//       each keyword only when set (Opaque is the default type); bare `@P.function` when none is.
//   def f(self, a: T, o: P.Out[T], io: P.InOut[T]) -> R:
//       several results `-> tuple[A, B]` (a single tuple-typed result is `-> P.Tuple[A, B]`);
//       no results, no arrow. Non-empty Function.attrs print first in the body as
//       `P.func_attr({"key": value})`.
//
// Types
//   P.Scalar[P.INT64]
//   P.Tensor[[64, N], P.FP32]                   ND layout and no view
//   P.Tensor[[64, N], P.FP32, P.TensorLayout.DN] another layout, no view
//   P.Tensor[[64, N], P.FP32, P.TensorView(stride=[..], valid_shape=[..], pad=P.PadValue.zero,
//            layout=P.TensorLayout.ND)]         a view: its non-default fields, then the layout
//   P.Tile[[16, 16], P.FP16, <memref>, P.Mem.Vec, P.TileView(valid_shape=[..], blayout=P.TileLayout.x,
//          slayout=P.TileLayout.x, fractal=512, pad=P.PadValue.x)]
//       memref, memory space and view each only when set; the view lists its set fields only.
//   <memref> = P.MemRef("name", byte_offset, size, P.Mem.Vec[, base=b]): the MemRef Var's
//       printed name as a string (one name per MemRef), then its fields. MemRefs print this
//       way wherever they appear, in types and in expressions.
//   P.Tuple[A, B] (P.Tuple[()] when empty), P.Array[8, P.TASK_ID], P.Ptr[P.Mem.Vec] (P.Ptr
//   without a space), P.Unknown.
//
// Literals
//   ConstInt: INDEX bare (`5`, `-1`); other dtypes `P.const(5, P.INT64)`.
//   ConstFloat: FP32 bare, as Python's repr (`1.0`, `1e-05`, `100000.0`); other dtypes
//   `P.const(0.5, P.FP16)`; infinities and NaN `float("inf")`, `float("-inf")`, `float("nan")`.
//   ConstBool: True / False.
//   A minus sign written directly before a literal is part of the literal, so the negation of
//   a bare literal spells its operand out: Neg(ConstInt 1) is `-P.const(1, P.INDEX)`.
//
// Expressions
//   Python operators with the fewest parentheses Python's precedence allows; comparisons never
//   chain (`(a < b) == c`); `a and b and c` groups left; an and/or inside the other is always
//   parenthesized. Min/Max/Xor/Cast: P.min(a, b), P.max(a, b), P.xor(a, b), P.cast(x, P.INT32);
//   Abs: abs(x); Not: not x; BitNot: ~x. TupleGetItem `t[0]`; MakeTuple a list `[a, b]`.
//   Op calls `P.tile.load(x, [0, 0], [16, 16], target_memory=P.Mem.Vec, attrs={"k": v})`
//   (kwargs as keywords, non-empty Call.attrs last); function calls `self.f(a, b)`.
//   Submit `P.submit(self.f, a, b, deps=[t], allow_early_resolve=True, attrs={..})`: deps, then
//   the submit's attrs as keywords, then the call's attrs; a call whose attrs start with
//   "core_num" (and "sync_start") prints as `P.spmd_submit(self.f, a, core_num=4, sync_start=False,
//   deps=[..], ...)`. A statement `t = <submit>` followed directly by `x_i = t[i]` (increasing i,
//   t used nowhere else) prints as one `x_0, _, x_2 = P.submit(...)` (`_`: an item not taken).
//
// Attribute values (kwargs, Call.attrs, function, loop and scope attrs)
//   True/False, ints, floats (always with '.', 'e' or float(..)), "strings" with Python escapes,
//   P.FP16, P.<Enum>.<name> (MemorySpace as P.Mem.<name>), lists `[..]`, Exprs as expressions.
//   Where no op schema types the value (attrs of every kind, and kwargs the op's registered
//   schema does not declare with that kind) the text also tells the value's kind: a literal Expr
//   (alone or in an Expr list) prints as P.const(..), an empty string list as `list[str]()`,
//   an empty Expr list as `list[P.Expr]()`, while `[]` is an empty int list.
//   Keys that are not identifiers, are Python keywords or clash with a keyword the construct
//   prints itself (`attrs` of calls, `init_values` of loops, the pl.at/pl.spmd keywords) go in
//   one trailing `**{"key": value}`.
//
// Statements
//   x: T = value                      (concise mode: `x = value`; untyped Vars never annotated)
//   expr                              EvalStmt
//   return / return a / return a, b
//   break, continue, pass (empty bodies)
//   if c: ... else: ...               with return_vars, each branch ends
//                                     `r0, r1 = P.yield_(a, b)` (one var in verbose mode: `r: T = P.yield_(a)`)
//   for i in P.range(0, n, 1):        P.range / P.parallel / P.unroll / P.pipeline by ForKind,
//   for i, (a, b) in P.range(0, n, 1, init_values=(x, y), stage=2):   loop attrs as keywords;
//                                     the body's trailing yield assigns the loop's return_vars.
//   for (a,) in P.while_(init_values=(x,)):   a while loop with iter_args; its first body line is
//       P.cond(<condition>)                   the condition. Without iter_args: `while c:`.
//   P.yield_(a, b)                    a yield that assigns nothing
//   with P.at(level=P.Level.CORE_GROUP, name_hint="k", optimizations=[P.split(P.SplitMode.UP_DOWN)]):
//                                     InCore scope (CORE_GROUP always means InCore)
//   with P.at(level=P.Level.HOST, role=P.Role.Orchestrator, name_hint="k"):   Hierarchy scope
//   with P.spmd(8, sync_start=True, name_hint="k"):                           Spmd scope
//   with P.cluster(name_hint="k"):                                            Cluster scope
//                                     name_hint and the options only when set, then ScopeStmt.attrs
//   with P.at(level=P.Level.CORE_GROUP, deps=[t0]) as t1:                   ScopeStmt.task_id
//   # comment                         Stmt.leading_comments, one `#` line per line of text
//
// Names
//   Variables are identities: each distinct Var gets one name in its function. The first Var
//   with a hint keeps it (made an identifier: other characters become '_', a keyword gets a
//   trailing '_', an empty hint is `v`); later ones get `x_1`, `x_2`, ... in order of first
//   appearance in the text. Names never clash with P, self, the builtins the text uses
//   (abs, float, list, str, tuple), the program's function names or module-level names.
#pragma once

#include <string>

#include "pypto/ir/ir.h"

namespace pypto::ir {

struct PrintOptions {
  // Module alias used for the DSL; must be a Python identifier (ValueError otherwise).
  std::string prefix = "pl";
  // Annotate every assignment with its type (verbose), or only signatures.
  bool concise = false;
};

std::string PrintProgram(const ProgramPtr& program, const PrintOptions& options = {});
// A function alone, as it would appear inside `@pl.program` (with `self`),
// starting at column 0. Dynamic dims keep their module-level names but are
// not declared.
std::string PrintFunction(const FunctionPtr& function, const PrintOptions& options = {});
// Any node: a program or function as above, a statement (lines from column 0,
// ending in a newline), an expression, a type, an op (`pl.tile.add`) or a
// function reference (`self.f`).
std::string PrintNode(const NodePtr& node, const PrintOptions& options = {});

}  // namespace pypto::ir
