#include <gtest/gtest.h>

#include <cstdint>

#include "support/pass_test_util.h"
#include "pypto/ir/printer.h"
#include "pypto/ops/registry.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"
#include "simplify.h"

namespace pypto::test {
namespace {

using passes::SimplifyPass;

// A registered op without effects, one that writes its second argument, and
// one that writes it only when called with `write=True`.
PYPTO_REGISTER_OP("test.pure").add_variadic_argument("args");
PYPTO_REGISTER_OP("test.store").add_argument("src").add_argument("dst").set_arg_effect(1, ops::ArgEffect::kWrite);
PYPTO_REGISTER_OP("test.maybe_store")
    .add_argument("src")
    .add_argument("dst")
    .add_kwarg("write", ops::AttrKind::kBool, false)
    .set_arg_effect(1, [](const Attrs& kwargs) {
      return kwargs.Get<bool>("write").value_or(false) ? ops::ArgEffect::kWrite : ops::ArgEffect::kRead;
    });

// Runs the pass on a valid program and checks that the result is valid too.
ProgramPtr Simplified(const ProgramPtr& program, const pass::PassOptions& options = {}) {
  EXPECT_VALID_IR(program);
  SimplifyPass pass;
  pass.Configure(options);
  pass::PassContext ctx;
  ProgramPtr out = pass.Run(program, ctx);
  EXPECT_VALID_IR(out);
  return out;
}

// `return values` after simplification of a function with params `params`.
void ExpectReturns(const std::vector<VarPtr>& params, const std::vector<ExprPtr>& input,
                   const std::vector<ExprPtr>& expected) {
  auto out = Simplified(ProgramOf(params, Seq({Return(input)})));
  EXPECT_SAME_IR(out, ProgramOf(params, Seq({Return(expected)})));
}

TEST(Simplify, DescribesItself) {
  SimplifyPass pass;
  EXPECT_EQ(pass.name(), "Simplify");
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::SSAForm));
  auto specs = pass.option_specs();
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[0].name, "fold_constants");
  EXPECT_EQ(std::get<bool>(specs[0].default_value), true);
  EXPECT_EQ(specs[1].name, "remove_dead_code");
  EXPECT_EQ(std::get<bool>(specs[1].default_value), true);
  EXPECT_EQ(specs[2].name, "max_iterations");
  EXPECT_EQ(std::get<int64_t>(specs[2].default_value), 8);
}

TEST(Simplify, FoldsIntegerArithmetic) {
  auto x = IndexVar("x");
  auto value = Bin(BinaryOp::Sub, Bin(BinaryOp::Mul, Bin(BinaryOp::Add, Int(2), Int(3)), Int(4)), Int(1));
  auto out = Simplified(ProgramOf({}, Seq({Assign(x, value), Return({x})})));
  EXPECT_SAME_IR(out, ProgramOf({}, Seq({Return({Int(19)})})));
}

TEST(Simplify, FloorDivisionAndModuloFollowPython) {
  ExpectReturns({},
                {Bin(BinaryOp::FloorDiv, Int(-7), Int(2)), Bin(BinaryOp::FloorMod, Int(-7), Int(2)),
                 Bin(BinaryOp::FloorDiv, Int(7), Int(-2)), Bin(BinaryOp::FloorMod, Int(7), Int(-2)),
                 Bin(BinaryOp::FloorDiv, Float(-7.0), Float(2.0)), Bin(BinaryOp::FloorMod, Float(-7.5), Float(2.0)),
                 Bin(BinaryOp::FloatDiv, Int(7), Int(2))},
                {Int(-4), Int(1), Int(-4), Int(-1), Float(-4.0), Float(0.5), Float(3.5)});
}

TEST(Simplify, NeverFoldsADivisionByZero) {
  auto n = IndexVar("n");
  auto program = ProgramOf({n}, Seq({Return({Bin(BinaryOp::FloorDiv, Int(7), Int(0)),
                                            Bin(BinaryOp::FloorMod, Int(7), Int(0)),
                                            Bin(BinaryOp::FloatDiv, Float(1.0), Float(0.0)),
                                            Bin(BinaryOp::FloorDiv, n, Int(0))})}));
  EXPECT_EQ(Simplified(program), program);
}

TEST(Simplify, FoldsComparisonsAndLogic) {
  ExpectReturns({},
                {Bin(BinaryOp::Lt, Int(3), Int(4)), Bin(BinaryOp::Ge, Float(2.5), Int(3)),
                 Bin(BinaryOp::Or, Bin(BinaryOp::Eq, Int(1), Int(2)), Bool(true)),
                 Bin(BinaryOp::And, Bool(true), Bool(false)), Bin(BinaryOp::Xor, Bool(true), Bool(false)),
                 Un(UnaryOp::Not, Bool(false)), Bin(BinaryOp::Ne, Int(5), Int(5))},
                {Bool(true), Bool(false), Bool(true), Bool(false), Bool(true), Bool(true), Bool(false)});
}

TEST(Simplify, FoldsCastsThatAreExact) {
  ExpectReturns({},
                {CastTo(Float(3.9), DataType::INT32), CastTo(Float(-3.9), DataType::INT32),
                 CastTo(Int(5), DataType::BOOL), CastTo(Int(2), DataType::FP32),
                 CastTo(Int(300, DataType::INT32), DataType::INT8)},
                {Int(3, DataType::INT32), Int(-3, DataType::INT32), Bool(true), Float(2.0),
                 CastTo(Int(300, DataType::INT32), DataType::INT8)});
}

TEST(Simplify, KeepsIntegerOverflow) {
  auto big = Int(2147483647, DataType::INT32);
  auto max64 = Int(INT64_MAX, DataType::INT64);
  auto program = ProgramOf({}, Seq({Return({Bin(BinaryOp::Add, big, Int(1, DataType::INT32)),
                                            Bin(BinaryOp::Mul, max64, Int(2, DataType::INT64)),
                                            Un(UnaryOp::Neg, Int(3, DataType::UINT8))})}));
  EXPECT_EQ(Simplified(program), program);
}

TEST(Simplify, RoundsFP32ResultsAndKeepsNarrowerFloats) {
  auto half = Bin(BinaryOp::Add, Float(1.0, DataType::FP16), Float(2.0, DataType::FP16));
  auto program = ProgramOf({}, Seq({Return({half})}));
  EXPECT_EQ(Simplified(program), program);
  ExpectReturns({}, {Bin(BinaryOp::Add, Float(0.1), Float(0.2)), Bin(BinaryOp::Mul, Float(1e30), Float(1e30))},
                {Float(static_cast<double>(0.1f + 0.2f)), Bin(BinaryOp::Mul, Float(1e30), Float(1e30))});
}

TEST(Simplify, FoldsMinMaxPowAndShifts) {
  ExpectReturns({},
                {Bin(BinaryOp::Min, Int(3), Int(-2)), Bin(BinaryOp::Max, Int(3), Int(-2)),
                 Bin(BinaryOp::Pow, Int(2), Int(10)), Bin(BinaryOp::Pow, Int(2), Int(-1)),
                 Bin(BinaryOp::BitShiftLeft, Int(1), Int(4)), Bin(BinaryOp::BitShiftRight, Int(-16), Int(2)),
                 Bin(BinaryOp::BitAnd, Int(12), Int(10)), Un(UnaryOp::BitNot, Int(5, DataType::UINT8)),
                 Un(UnaryOp::Abs, Int(-9))},
                {Int(-2), Int(3), Int(1024), Bin(BinaryOp::Pow, Int(2), Int(-1)), Int(16), Int(-4), Int(8),
                 Int(250, DataType::UINT8), Int(9)});
}

TEST(Simplify, AppliesAlgebraicIdentities) {
  auto x = IndexVar("x");
  auto b = ScalarVar("b", DataType::BOOL);
  ExpectReturns({x, b},
                {Bin(BinaryOp::Add, x, Int(0)), Bin(BinaryOp::Add, Int(0), x), Bin(BinaryOp::Sub, x, Int(0)),
                 Bin(BinaryOp::Mul, x, Int(1)), Bin(BinaryOp::Mul, Int(1), x), Bin(BinaryOp::Mul, x, Int(0)),
                 Bin(BinaryOp::FloorDiv, x, Int(1)), Bin(BinaryOp::Sub, x, x), Bin(BinaryOp::Eq, x, x),
                 Un(UnaryOp::Not, Un(UnaryOp::Not, b)), Un(UnaryOp::Neg, Un(UnaryOp::Neg, x)),
                 Bin(BinaryOp::And, b, Bool(true)), Bin(BinaryOp::Or, b, Bool(true)), CastTo(x, DataType::INDEX),
                 Bin(BinaryOp::Sub, Bin(BinaryOp::Mul, x, Int(3)), Bin(BinaryOp::Mul, x, Int(3))),
                 Bin(BinaryOp::Lt, Bin(BinaryOp::Mul, x, Int(3)), Bin(BinaryOp::Mul, x, Int(3)))},
                {x, x, x, x, x, Int(0), x, Int(0), Bool(true), b, x, b, Bool(true), x, Int(0), Bool(false)});
}

TEST(Simplify, FloatIdentitiesKeepSignedZeroAndNaN) {
  auto f = ScalarVar("f", DataType::FP32);
  ExpectReturns({f},
                {Bin(BinaryOp::Add, f, Float(0.0)), Bin(BinaryOp::Mul, f, Float(0.0)), Bin(BinaryOp::Sub, f, f),
                 Bin(BinaryOp::Eq, f, f), Bin(BinaryOp::Mul, f, Float(1.0)), Bin(BinaryOp::Sub, f, Float(0.0))},
                {Bin(BinaryOp::Add, f, Float(0.0)), Bin(BinaryOp::Mul, f, Float(0.0)), Bin(BinaryOp::Sub, f, f),
                 Bin(BinaryOp::Eq, f, f), f, f});
}

TEST(Simplify, IdentitiesNeverChangeTheDType) {
  auto x = ScalarVar("x", DataType::INT32);
  auto program = ProgramOf({x}, Seq({Return({Bin(BinaryOp::Add, x, Int(0))})}));  // INT32 + INDEX is INDEX
  EXPECT_EQ(Simplified(program), program);
}

TEST(Simplify, KeepsOperandsWithSideEffects) {
  auto effect = CallOp("test.unregistered", {}, Scalar(DataType::INDEX));
  auto program = ProgramOf({}, Seq({Return({Bin(BinaryOp::Mul, effect, Int(0)), Bin(BinaryOp::Sub, effect, effect)})}));
  EXPECT_EQ(Simplified(program), program);
}

TEST(Simplify, PropagatesConstantsAndRetypesIntegerLiterals) {
  auto n = ScalarVar("n", DataType::INT64);
  auto a = ScalarVar("a", DataType::INT64);
  auto b = ScalarVar("b", DataType::INT64);
  auto c = ScalarVar("c", DataType::INT64);
  auto input = Seq({Assign(a, Int(4)), Assign(b, Bin(BinaryOp::Mul, a, Int(2, DataType::INT64))),
                    Assign(c, Bin(BinaryOp::Add, b, n)), Return({c})});
  auto expected =
      Seq({Assign(c, Bin(BinaryOp::Add, Int(8, DataType::INT64), n)), Return({c})});
  EXPECT_SAME_IR(Simplified(ProgramOf({n}, input)), ProgramOf({n}, expected));
}

// `b = a` of a tensor is an alias: uses of b read a, and the copy goes away.
TEST(Simplify, PropagatesCopiesOfTensorsOfOneType) {
  auto tensor = TensorType::Make(std::vector<int64_t>{64, 64}, DataType::FP32);
  auto a = Var::Make("a", tensor);
  auto b = Var::Make("b", tensor);
  auto input = Seq({Assign(b, a), Return({b})});
  EXPECT_SAME_IR(Simplified(ProgramOf({a}, input, {tensor})), ProgramOf({a}, Seq({Return({a})}), {tensor}));
}

TEST(Simplify, KeepsACopyThatChangesTheType) {
  auto a = Var::Make("a", TensorType::Make(std::vector<int64_t>{64, 64}, DataType::FP32));
  auto b = Var::Make("b", TensorType::Make(Ints({64, 64}), DataType::FP32, TensorLayout::DN));
  auto input = Seq({Assign(b, a), Return({b})});
  auto program = ProgramOf({a}, input, {b->type});
  SimplifyPass pass;
  pass::PassContext ctx;
  EXPECT_SAME_IR(pass.Run(program, ctx), program);
}

TEST(Simplify, SplicesTheTakenBranchOfAConstantIf) {
  auto n = IndexVar("n");
  auto t = IndexVar("t");
  auto r = IndexVar("r");
  auto cond = Bin(BinaryOp::Lt, Int(1), Int(2));
  auto input = Seq({IfStmt::Make(cond, Seq({Assign(t, Bin(BinaryOp::Mul, n, Int(2))), Yield({t})}),
                                 Seq({Yield({n})}), {r}),
                    Return({r})});
  // `r = t` is a copy of a scalar: its uses read t, and the copy is dead.
  auto expected = Seq({Assign(t, Bin(BinaryOp::Mul, n, Int(2))), Return({t})});
  EXPECT_SAME_IR(Simplified(ProgramOf({n}, input)), ProgramOf({n}, expected));
}

TEST(Simplify, RemovesAnIfThatIsNeverTaken) {
  auto n = IndexVar("n");
  auto input = Seq({IfStmt::Make(Bool(false), Seq({Eval(CallOp("test.unregistered", {n}))}), nullptr),
                    Return({n})});
  EXPECT_SAME_IR(Simplified(ProgramOf({n}, input)), ProgramOf({n}, Seq({Return({n})})));
}

TEST(Simplify, AssignsInitValuesForLoopsThatNeverRun) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto acc = IterArg::Make("acc", Scalar(DataType::INDEX), n);
  auto next = IndexVar("next");
  auto total = IndexVar("total");
  auto loop = ForStmt::Make(i, Int(5), Int(5), Int(1), {acc},
                            Seq({Assign(next, Bin(BinaryOp::Add, acc, i)), Yield({next})}), {total});
  auto w_acc = IterArg::Make("w", Scalar(DataType::INDEX), Int(3));
  auto w_out = IndexVar("w_out");
  auto never = WhileStmt::Make(Bool(false), {w_acc}, Seq({Yield({w_acc})}), {w_out});
  auto input = Seq({loop, never, Return({total, w_out})});
  EXPECT_SAME_IR(Simplified(ProgramOf({n}, input)), ProgramOf({n}, Seq({Return({n, Int(3)})})));
}

TEST(Simplify, ResolvesChainsOverSeveralRoundsUpToMaxIterations) {
  // The spliced `r = 5` is only propagated in the next round.
  auto r = IndexVar("r");
  auto s = IndexVar("s");
  auto input = Seq({IfStmt::Make(Bool(true), Seq({Yield({Int(5)})}), Seq({Yield({Int(6)})}), {r}),
                    Assign(s, Bin(BinaryOp::Add, r, Int(1))), Return({s})});
  auto program = ProgramOf({}, input);
  EXPECT_SAME_IR(Simplified(program), ProgramOf({}, Seq({Return({Int(6)})})));
  auto one_round = Simplified(program, {{"max_iterations", int64_t{1}}});
  EXPECT_SAME_IR(one_round, ProgramOf({}, Seq({Assign(r, Int(5)), Assign(s, Bin(BinaryOp::Add, r, Int(1))),
                                                Return({s})})));
}

TEST(Simplify, RemovesDeadCodeWithoutSideEffects) {
  auto n = IndexVar("n");
  auto t = Var::Make("t", TensorType::Make(std::vector<int64_t>{4}, DataType::FP32));
  auto dead_scalar = IndexVar("dead_scalar");
  auto dead_pure = IndexVar("dead_pure");
  auto kept_unknown = IndexVar("kept_unknown");
  auto kept_store = IndexVar("kept_store");
  auto kept_function = IndexVar("kept_function");
  auto dead_tuple = Var::Make("dead_tuple", TupleType::Make({Scalar(DataType::INDEX)}));
  auto dead_read = IndexVar("dead_read");
  auto kept_write = IndexVar("kept_write");
  auto reading = Call::Make(Op::Get("test.maybe_store"), {n, t}, {{"write", false}}, Scalar(DataType::INDEX));
  auto writing = Call::Make(Op::Get("test.maybe_store"), {n, t}, {{"write", true}}, Scalar(DataType::INDEX));
  auto function_call = Call::Make(GlobalVar::Make("helper"), {n}, {}, Scalar(DataType::INDEX));
  auto input = Seq({Assign(dead_scalar, Bin(BinaryOp::Add, n, Int(1))),
                    Assign(dead_pure, CallOp("test.pure", {n}, Scalar(DataType::INDEX))),
                    Assign(kept_unknown, CallOp("test.unregistered", {n}, Scalar(DataType::INDEX))),
                    Assign(kept_store, CallOp("test.store", {n, t}, Scalar(DataType::INDEX))),
                    Assign(kept_function, function_call), Assign(dead_tuple, MakeTuple::Make({n})),
                    Assign(dead_read, reading), Assign(kept_write, writing), Return({n})});
  auto expected = Seq({Assign(kept_unknown, CallOp("test.unregistered", {n}, Scalar(DataType::INDEX))),
                       Assign(kept_store, CallOp("test.store", {n, t}, Scalar(DataType::INDEX))),
                       Assign(kept_function, function_call), Assign(kept_write, writing), Return({n})});
  EXPECT_SAME_IR(Simplified(ProgramOf({n, t}, input)), ProgramOf({n, t}, expected));
}

TEST(Simplify, RemovesADeadChainInOneRound) {
  auto n = IndexVar("n");
  auto a = IndexVar("a");
  auto b = IndexVar("b");
  auto c = IndexVar("c");
  auto input = Seq({Assign(a, Bin(BinaryOp::Add, n, Int(1))), Assign(b, Bin(BinaryOp::Mul, a, Int(2))),
                    Assign(c, Bin(BinaryOp::Sub, b, Int(1))), Return({n})});
  auto out = Simplified(ProgramOf({n}, input), {{"max_iterations", int64_t{1}}, {"fold_constants", false}});
  EXPECT_SAME_IR(out, ProgramOf({n}, Seq({Return({n})})));
}

TEST(Simplify, CleansLoopBodiesAndRemovesEmptyLoops) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto j = IndexVar("j");
  auto acc = IterArg::Make("acc", Scalar(DataType::INDEX), Int(0));
  auto unused = IndexVar("unused");
  auto next = IndexVar("next");
  auto total = IndexVar("total");
  auto dead = IndexVar("dead");
  auto kept_loop = ForStmt::Make(i, Int(0), n, Int(1), {acc},
                                 Seq({Assign(unused, Bin(BinaryOp::Mul, i, i)),
                                      Assign(next, Bin(BinaryOp::Add, acc, i)), Yield({next})}),
                                 {total});
  auto empty_loop = ForStmt::Make(j, Int(0), n, Int(1), {}, Seq({Assign(dead, j)}), {});
  auto input = Seq({kept_loop, empty_loop, Seq({}), Return({total})});

  auto acc2 = IterArg::Make("acc", Scalar(DataType::INDEX), Int(0));
  auto expected_loop = ForStmt::Make(i, Int(0), n, Int(1), {acc2}, Seq({Assign(next, Bin(BinaryOp::Add, acc2, i)),
                                                                       Yield({next})}),
                                     {total});
  EXPECT_SAME_IR(Simplified(ProgramOf({n}, input)), ProgramOf({n}, Seq({expected_loop, Return({total})})));
}

TEST(Simplify, KeepsDefinitionsUsedOnlyInTypes) {
  auto n = IndexVar("n");
  auto m = IndexVar("m");
  auto t = Var::Make("t", TensorType::Make({m, Int(4)}, DataType::FP32));
  auto program = ProgramOf({n}, Seq({Assign(m, Bin(BinaryOp::Mul, n, Int(2))),
                                     Assign(t, CallOp("test.unregistered", {}, t->type)), Return({t})}));
  EXPECT_EQ(Simplified(program), program);
}

TEST(Simplify, OptionsSwitchFoldingAndDeadCodeRemovalOffSeparately) {
  auto x = IndexVar("x");
  auto y = IndexVar("y");
  auto program = ProgramOf({}, Seq({Assign(x, Bin(BinaryOp::Add, Int(2), Int(3))), Assign(y, Int(1)), Return({x})}));

  auto no_fold = Simplified(program, {{"fold_constants", false}});
  EXPECT_SAME_IR(no_fold, ProgramOf({}, Seq({Assign(x, Bin(BinaryOp::Add, Int(2), Int(3))), Return({x})})));

  auto no_dce = Simplified(program, {{"remove_dead_code", false}});
  EXPECT_SAME_IR(no_dce, ProgramOf({}, Seq({Assign(x, Int(5)), Assign(y, Int(1)), Return({Int(5)})})));

  EXPECT_EQ(Simplified(program, {{"fold_constants", false}, {"remove_dead_code", false}}), program);
}

TEST(Simplify, RejectsInvalidOptions) {
  SimplifyPass pass;
  try {
    pass.Configure({{"max_iterations", int64_t{0}}});
    FAIL() << "max_iterations = 0 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kPipeline);
    EXPECT_EQ(e.message(), "Simplify option 'max_iterations' must be at least 1, got 0");
  }
  try {
    pass.Configure({{"fold_constants", int64_t{1}}});
    FAIL() << "an int for a bool option was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kPipeline);
    EXPECT_EQ(e.message(), "Simplify option 'fold_constants' must be a bool, got int");
  }
}

TEST(Simplify, ReportsAnIfWhoseBranchDoesNotYieldItsReturnVars) {
  auto r = IndexVar("r");
  auto bad_if = IfStmt::Make(Bool(true), Seq({}), Seq({Yield({Int(1)})}), {r}, Span("kernel.py", 7, 3));
  try {
    pass::PassContext ctx;
    SimplifyPass().Run(ProgramOf({}, Seq({bad_if, Return({r})})), ctx);
    FAIL() << "an if without a yield for its return var was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kVerification);
    EXPECT_EQ(std::string(e.what()),
              "kernel.py:7:3: Simplify: this if defines 1 return var but its branch yields 0 values; every return "
              "var needs exactly one value");
  }
}

TEST(Simplify, SimplifiesTheReadmeExample) {
  auto n = IndexVar("n");
  auto a = IndexVar("a");
  auto b = IndexVar("b");
  auto unused = IndexVar("unused");
  auto r = IndexVar("r");
  auto input = Seq({Assign(a, Int(4)), Assign(b, Bin(BinaryOp::Add, Bin(BinaryOp::Mul, a, Int(2)), Int(0))),
                    Assign(unused, Bin(BinaryOp::Mul, n, n)),
                    IfStmt::Make(Bin(BinaryOp::Gt, b, Int(5)), Seq({Yield({Bin(BinaryOp::Add, n, b)})}),
                                 Seq({Yield({n})}), {r}),
                    Return({r})});
  auto program = ProgramOf({n}, input, {Scalar(DataType::INDEX)});
  EXPECT_EQ(PrintFunction(program->functions[0]),
            "@pl.function\n"
            "def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
            "    a: pl.Scalar[pl.INDEX] = 4\n"
            "    b: pl.Scalar[pl.INDEX] = a * 2 + 0\n"
            "    unused: pl.Scalar[pl.INDEX] = n * n\n"
            "    if b > 5:\n"
            "        r: pl.Scalar[pl.INDEX] = pl.yield_(n + b)\n"
            "    else:\n"
            "        r: pl.Scalar[pl.INDEX] = pl.yield_(n)\n"
            "    return r\n");
  auto out = Simplified(program);
  EXPECT_EQ(PrintFunction(out->functions[0]),
            "@pl.function\n"
            "def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
            "    r: pl.Scalar[pl.INDEX] = n + 8\n"
            "    return r\n");
  auto expected = Seq({Assign(r, Bin(BinaryOp::Add, n, Int(8))), Return({r})});
  EXPECT_SAME_IR(out, ProgramOf({n}, expected, {Scalar(DataType::INDEX)}));
}

TEST(Simplify, IsIdempotent) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto a = IndexVar("a");
  auto b = IndexVar("b");
  auto acc = IterArg::Make("acc", Scalar(DataType::INDEX), Int(0));
  auto next = IndexVar("next");
  auto total = IndexVar("total");
  auto loop = ForStmt::Make(i, Int(0), n, Int(1), {acc},
                            Seq({Assign(next, Bin(BinaryOp::Add, acc, Bin(BinaryOp::Mul, a, i))), Yield({next})}),
                            {total});
  auto program = ProgramOf({n}, Seq({Assign(a, Int(3)), Assign(b, Bin(BinaryOp::Add, a, Int(0))), loop,
                                     Return({Bin(BinaryOp::Add, total, b)})}));
  auto once = Simplified(program);
  EXPECT_NE(once, program);
  EXPECT_EQ(Simplified(once), once);
}

}  // namespace
}  // namespace pypto::test
