#include "inline_functions.h"

#include <gtest/gtest.h>

#include "support/pass_test_util.h"
#include "pypto/ir/printer.h"
#include "pypto/ops/registry.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"

namespace pypto::test {
namespace {

using passes::InlineFunctionsPass;

// Inline helper: def shift(a): t = a + 1.0; u = t * 2.0; return u
FunctionPtr ShiftHelper() {
  auto a = TensorVar("a");
  auto t = TensorVar("t");
  auto u = TensorVar("u");
  return Fn("shift", FunctionType::Inline, {a}, {Tensor16()},
            Seq({Assign(t, Op("tensor.adds", {a, Float(1.0)})), Assign(u, Op("tensor.muls", {t, Float(2.0)})),
                 Return({u})}));
}

TEST(InlineFunctions, DescribesItself) {
  InlineFunctionsPass pass;
  EXPECT_EQ(pass.name(), "InlineFunctions");
  EXPECT_TRUE(pass.produced().Has(pass::IRProperty::NoInlineFunctions));
  EXPECT_TRUE(pass.required().empty());
}

TEST(InlineFunctions, SplicesTheBodyWithFreshNamesAndDropsTheInlineFunction) {
  auto x = TensorVar("x");
  auto y = TensorVar("y");
  auto z = TensorVar("z");
  auto main =
      Fn("main", FunctionType::InCore, {x}, {Tensor16()},
         Seq({Assign(y, CallFn("shift", {x}, Tensor16())), Assign(z, CallFn("shift", {y}, Tensor16())), Return({z})}));
  auto program = Program::Make("test", {main, ShiftHelper()});

  auto ex = TensorVar("x");
  auto t0 = TensorVar("t_inline0");
  auto u0 = TensorVar("u_inline0");
  auto ey = TensorVar("y");
  auto t1 = TensorVar("t_inline1");
  auto u1 = TensorVar("u_inline1");
  auto ez = TensorVar("z");
  auto expected = Program::Make(
      "test",
      {Fn("main", FunctionType::InCore, {ex}, {Tensor16()},
          Seq({Assign(t0, Op("tensor.adds", {ex, Float(1.0)})), Assign(u0, Op("tensor.muls", {t0, Float(2.0)})),
               Assign(ey, u0), Assign(t1, Op("tensor.adds", {ey, Float(1.0)})),
               Assign(u1, Op("tensor.muls", {t1, Float(2.0)})), Assign(ez, u1), Return({ez})}))});
  ProgramPtr out = RunPass<InlineFunctionsPass>(program);
  EXPECT_SAME_IR(out, expected);
  EXPECT_EQ(PrintProgram(out),
            "# pypto.program: test\n"
            "import pypto.language as pl\n"
            "\n"
            "@pl.program\n"
            "class test:\n"
            "    @pl.function(type=pl.FunctionType.InCore)\n"
            "    def main(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
            "        t_inline0: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(x, 1.0)\n"
            "        u_inline0: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.muls(t_inline0, 2.0)\n"
            "        y: pl.Tensor[[16, 16], pl.FP32] = u_inline0\n"
            "        t_inline1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(y, 1.0)\n"
            "        u_inline1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.muls(t_inline1, 2.0)\n"
            "        z: pl.Tensor[[16, 16], pl.FP32] = u_inline1\n"
            "        return z\n");
}

// pair(b): s = shift(b); return b, s   -- an Inline function calling another
FunctionPtr PairHelper() {
  auto b = TensorVar("b");
  auto s = TensorVar("s");
  return Fn("pair", FunctionType::Inline, {b}, {Tensor16(), Tensor16()},
            Seq({Assign(s, CallFn("shift", {b}, Tensor16())), Return({b, s})}));
}
TypePtr PairType() { return TupleType::Make({Tensor16(), Tensor16()}); }

TEST(InlineFunctions, BindsUnpackedResultsDirectlyAndExpandsNestedInlineCalls) {
  auto x = TensorVar("x");
  auto r = Var::Make("r", PairType());
  auto first = TensorVar("first");
  auto main =
      Fn("main", FunctionType::InCore, {x}, {Tensor16()},
         Seq({Assign(r, CallFn("pair", {x}, PairType())), Assign(first, TupleGetItem::Make(r, 1)), Return({first})}));
  auto program = Program::Make("test", {main, PairHelper(), ShiftHelper()});

  auto ex = TensorVar("x");
  auto t = TensorVar("t_inline1");
  auto u = TensorVar("u_inline1");
  auto es = TensorVar("s_inline0");
  auto efirst = TensorVar("first");
  auto expected = Program::Make(
      "test",
      {Fn("main", FunctionType::InCore, {ex}, {Tensor16()},
          Seq({Assign(t, Op("tensor.adds", {ex, Float(1.0)})), Assign(u, Op("tensor.muls", {t, Float(2.0)})),
               Assign(es, u), Assign(efirst, es), Return({efirst})}))});
  EXPECT_SAME_IR(RunPass<InlineFunctionsPass>(program), expected);
}

TEST(InlineFunctions, BindsSeveralResultsUsedAsATupleWithAMakeTuple) {
  auto x = TensorVar("x");
  auto r = Var::Make("r", PairType());
  auto main = Fn("main", FunctionType::InCore, {x}, {PairType()},
                 Seq({Assign(r, CallFn("pair", {x}, PairType())), Return({r})}));
  auto program = Program::Make("test", {main, PairHelper(), ShiftHelper()});

  auto ex = TensorVar("x");
  auto t = TensorVar("t_inline1");
  auto u = TensorVar("u_inline1");
  auto es = TensorVar("s_inline0");
  auto er = Var::Make("r", PairType());
  auto expected = Program::Make(
      "test",
      {Fn("main", FunctionType::InCore, {ex}, {PairType()},
          Seq({Assign(t, Op("tensor.adds", {ex, Float(1.0)})), Assign(u, Op("tensor.muls", {t, Float(2.0)})),
               Assign(es, u), Assign(er, MakeTuple::Make({ex, es})), Return({er})}))});
  EXPECT_SAME_IR(RunPass<InlineFunctionsPass>(program), expected);
}

TEST(InlineFunctions, SplicesBareCallStatementsInsideLoops) {
  // touch(a): v = a + 1.0; return v   (result unused at the call site)
  auto a = TensorVar("a");
  auto v = TensorVar("v");
  auto touch = Fn("touch", FunctionType::Inline, {a}, {Tensor16()},
                  Seq({Assign(v, Op("tensor.adds", {a, Float(1.0)})), Return({v})}));
  auto x = TensorVar("x");
  auto i = IndexVar("i");
  auto loop = ForStmt::Make(i, Int(0), Int(4), Int(1), {}, Eval(CallFn("touch", {x}, Tensor16())), {});
  auto program = Program::Make("test", {Fn("main", FunctionType::InCore, {x}, {}, Seq({loop, Return({})})), touch});

  auto ex = TensorVar("x");
  auto ei = IndexVar("i");
  auto ev = TensorVar("v_inline0");
  auto eloop =
      ForStmt::Make(ei, Int(0), Int(4), Int(1), {}, Seq({Assign(ev, Op("tensor.adds", {ex, Float(1.0)}))}), {});
  auto expected = Program::Make("test", {Fn("main", FunctionType::InCore, {ex}, {}, Seq({eloop, Return({})}))});
  EXPECT_SAME_IR(RunPass<InlineFunctionsPass>(program), expected);
}

TEST(InlineFunctions, LeavesProgramsWithoutInlineFunctionsAlone) {
  auto x = TensorVar("x");
  auto program = Program::Make("test", {Fn("main", FunctionType::InCore, {x}, {Tensor16()}, Seq({Return({x})}))});
  EXPECT_EQ(RunPass<InlineFunctionsPass>(program), program);
}

TEST(InlineFunctions, RejectsCallCyclesNamingTheCycle) {
  auto p = TensorVar("p");
  auto q = TensorVar("q");
  auto pr = TensorVar("pr");
  auto qr = TensorVar("qr");
  auto ping = Fn("ping", FunctionType::Inline, {p}, {Tensor16()},
                 Seq({Assign(pr, CallFn("pong", {p}, Tensor16())), Return({pr})}));
  auto pong = Fn("pong", FunctionType::Inline, {q}, {Tensor16()},
                 Seq({Assign(qr, CallFn("ping", {q}, Tensor16())), Return({qr})}));
  auto x = TensorVar("x");
  auto y = TensorVar("y");
  auto main = Fn("main", FunctionType::InCore, {x}, {Tensor16()},
                 Seq({Assign(y, CallFn("ping", {x}, Tensor16())), Return({y})}));
  Error e = PassError<InlineFunctionsPass>(Program::Make("test", {main, ping, pong}));
  EXPECT_EQ(e.kind(), ErrorKind::kValue);
  EXPECT_EQ(e.message(),
            "InlineFunctions: the Inline functions call each other in a cycle (ping -> pong -> ping); splicing them "
            "would never end. Make one function of the cycle a non-Inline function (drop "
            "type=pl.FunctionType.Inline) or remove the recursive call");
}

TEST(InlineFunctions, RejectsCallsNestedInsideExpressions) {
  auto x = TensorVar("x");
  auto y = TensorVar("y");
  auto nested = Op("tensor.adds", {CallFn("shift", {x}, Tensor16()), Float(1.0)});
  auto main = Fn("main", FunctionType::InCore, {x}, {Tensor16()}, Seq({Assign(y, nested), Return({y})}));
  Error e = PassError<InlineFunctionsPass>(Program::Make("test", {main, ShiftHelper()}));
  EXPECT_EQ(e.message(),
            "InlineFunctions: in function 'main', the call of Inline function 'shift' is nested inside another "
            "expression; only `x = self.shift(...)` or a bare call statement can be inlined. Bind the call to a "
            "name first");
}

TEST(InlineFunctions, RejectsReturnsBeforeTheEndOfAnInlineBody) {
  auto a = TensorVar("a");
  auto flag = ScalarVar("flag", DataType::BOOL);
  auto early = Fn("early", FunctionType::Inline, {a, flag}, {Tensor16()},
                  Seq({IfStmt::Make(flag, Seq({Return({a})}), nullptr), Return({a})}));
  auto x = TensorVar("x");
  auto y = TensorVar("y");
  auto main = Fn("main", FunctionType::InCore, {x}, {Tensor16()},
                 Seq({Assign(y, CallFn("early", {x, Bool(true)}, Tensor16())), Return({y})}));
  Error e = PassError<InlineFunctionsPass>(Program::Make("test", {main, early}));
  EXPECT_EQ(e.message(),
            "InlineFunctions: Inline function 'early' (called from 'main') returns before its last statement; an "
            "Inline body is spliced into the caller, so it may return only at its end. Compute the result in an if "
            "with yields and return it once");
}

}  // namespace
}  // namespace pypto::test
