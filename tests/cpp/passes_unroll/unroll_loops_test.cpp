#include <gtest/gtest.h>

#include "support/pass_test_util.h"
#include "pypto/ir/printer.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"
#include "unroll_loops.h"

namespace pypto::test {
namespace {

using passes::UnrollLoopsPass;

// Runs the pass on a valid program and checks that the result is valid too.
ProgramPtr Unrolled(const ProgramPtr& program, const pass::PassOptions& options = {}) {
  EXPECT_VALID_IR(program);
  UnrollLoopsPass pass;
  pass.Configure(options);
  pass::PassContext ctx;
  ProgramPtr out = pass.Run(program, ctx);
  EXPECT_VALID_IR(out);
  return out;
}

StmtPtr UnrollLoop(const VarPtr& var, int64_t start, int64_t stop, int64_t step, StmtPtr body,
                   std::vector<IterArgPtr> iter_args = {}, std::vector<VarPtr> return_vars = {},
                   Span span = Span()) {
  return ForStmt::Make(var, Int(start), Int(stop), Int(step), std::move(iter_args), std::move(body),
                       std::move(return_vars), ForKind::Unroll, {}, std::move(span));
}

StmtPtr Touch(std::vector<ExprPtr> args) { return Eval(CallOp("test.touch", std::move(args))); }

// The error `program` (valid or not) raises when unrolled.
Error UnrollError(const ProgramPtr& program, const pass::PassOptions& options = {}) {
  UnrollLoopsPass pass;
  pass.Configure(options);
  return PassError(pass, program);
}

TEST(UnrollLoops, DescribesItself) {
  UnrollLoopsPass pass;
  EXPECT_EQ(pass.name(), "UnrollLoops");
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::SSAForm));
  EXPECT_TRUE(pass.produced().Has(pass::IRProperty::NoUnrollLoops));
  auto specs = pass.option_specs();
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].name, "max_iterations");
  EXPECT_EQ(std::get<int64_t>(specs[0].default_value), 1024);
}

TEST(UnrollLoops, CopiesTheBodyOncePerIteration) {
  auto i = IndexVar("i");
  auto program = ProgramOf({}, Seq({UnrollLoop(i, 0, 3, 1, Seq({Touch({i})})), Return({})}));
  auto expected = ProgramOf({}, Seq({Touch({Int(0)}), Touch({Int(1)}), Touch({Int(2)}), Return({})}));
  EXPECT_SAME_IR(Unrolled(program), expected);
}

TEST(UnrollLoops, HandlesStepsAndNegativeSteps) {
  auto i = IndexVar("i");
  auto j = IndexVar("j");
  auto program = ProgramOf({}, Seq({UnrollLoop(i, 10, 0, -4, Seq({Touch({i})})),
                                    UnrollLoop(j, 1, 8, 3, Seq({Touch({j})}))}));
  auto expected = ProgramOf({}, Seq({Touch({Int(10)}), Touch({Int(6)}), Touch({Int(2)}), Touch({Int(1)}),
                                     Touch({Int(4)}), Touch({Int(7)})}));
  EXPECT_SAME_IR(Unrolled(program), expected);
}

TEST(UnrollLoops, ThreadsIterArgsAndRenamesEveryDefinition) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto acc = IterArg::Make("acc", Scalar(DataType::INDEX), n);
  auto next = IndexVar("next");
  auto total = IndexVar("total");
  auto loop = UnrollLoop(i, 0, 3, 1, Seq({Assign(next, Bin(BinaryOp::Add, acc, i)), Yield({next})}), {acc}, {total});
  auto program = ProgramOf({n}, Seq({loop, Return({total})}));
  auto out = Unrolled(program);

  auto next0 = IndexVar("next_0");
  auto next1 = IndexVar("next_1");
  auto next2 = IndexVar("next_2");
  auto expected = Seq({Assign(next0, Bin(BinaryOp::Add, n, Int(0))), Assign(next1, Bin(BinaryOp::Add, next0, Int(1))),
                       Assign(next2, Bin(BinaryOp::Add, next1, Int(2))), Assign(total, next2), Return({total})});
  EXPECT_SAME_IR(out, ProgramOf({n}, expected));
  EXPECT_TRUE(DefinesEachVarOnce(out));
  auto stmts = Flatten(BodyOf(out));
  EXPECT_EQ(As<AssignStmt>(stmts[0])->var->name_hint, "next_0");
  EXPECT_EQ(As<AssignStmt>(stmts[2])->var->name_hint, "next_2");
  EXPECT_EQ(As<AssignStmt>(stmts[3])->var, total);  // the return var keeps its identity for later uses
}

TEST(UnrollLoops, UnrollsTheReadmeExample) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto acc = IterArg::Make("acc", Scalar(DataType::INDEX), n);
  auto next = IndexVar("nxt");
  auto total = IndexVar("total");
  auto loop = UnrollLoop(i, 0, 3, 1, Seq({Assign(next, Bin(BinaryOp::Add, acc, i)), Yield({next})}), {acc}, {total});
  auto program = ProgramOf({n}, Seq({loop, Return({total})}), {Scalar(DataType::INDEX)});
  EXPECT_EQ(PrintFunction(program->functions[0]),
            "@pl.function\n"
            "def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
            "    for i, (acc,) in pl.unroll(0, 3, 1, init_values=(n,)):\n"
            "        nxt: pl.Scalar[pl.INDEX] = acc + i\n"
            "        total: pl.Scalar[pl.INDEX] = pl.yield_(nxt)\n"
            "    return total\n");
  EXPECT_EQ(PrintFunction(Unrolled(program)->functions[0]),
            "@pl.function\n"
            "def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
            "    nxt_0: pl.Scalar[pl.INDEX] = n + 0\n"
            "    nxt_1: pl.Scalar[pl.INDEX] = nxt_0 + 1\n"
            "    nxt_2: pl.Scalar[pl.INDEX] = nxt_1 + 2\n"
            "    total: pl.Scalar[pl.INDEX] = nxt_2\n"
            "    return total\n");
}

TEST(UnrollLoops, PrintsNestedExpansionsWithPerCopyNames) {
  auto i = IndexVar("i");
  auto j = IndexVar("j");
  auto x = IndexVar("x");
  auto inner = ForStmt::Make(j, Int(0), i, Int(1), {}, Seq({Assign(x, Bin(BinaryOp::Mul, i, j)), Touch({x})}), {},
                             ForKind::Unroll);
  auto out = Unrolled(ProgramOf({}, Seq({UnrollLoop(i, 1, 3, 1, Seq({inner}))})));
  EXPECT_EQ(PrintFunction(out->functions[0]),
            "@pl.function\n"
            "def main(self):\n"
            "    x_0_0: pl.Scalar[pl.INDEX] = 1 * 0\n"
            "    pl.test.touch(x_0_0)\n"
            "    x_1_0: pl.Scalar[pl.INDEX] = 2 * 0\n"
            "    pl.test.touch(x_1_0)\n"
            "    x_1_1: pl.Scalar[pl.INDEX] = 2 * 1\n"
            "    pl.test.touch(x_1_1)\n");
}

TEST(UnrollLoops, BindsComputedYieldsBeforeTheNextCopy) {
  auto i = IndexVar("i");
  auto acc = IterArg::Make("acc", Scalar(DataType::INDEX), Int(1));
  auto total = IndexVar("total");
  auto loop = UnrollLoop(i, 0, 2, 1, Seq({Yield({Bin(BinaryOp::Mul, acc, Int(2))})}), {acc}, {total});
  auto out = Unrolled(ProgramOf({}, Seq({loop, Return({total})})));
  auto acc1 = IndexVar("acc_1");
  auto expected = Seq({Assign(acc1, Bin(BinaryOp::Mul, Int(1), Int(2))),
                       Assign(total, Bin(BinaryOp::Mul, acc1, Int(2))), Return({total})});
  EXPECT_SAME_IR(out, ProgramOf({}, expected));
}

TEST(UnrollLoops, ZeroIterationsAssignTheInitValues) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto acc = IterArg::Make("acc", Scalar(DataType::INDEX), n);
  auto total = IndexVar("total");
  auto loop = UnrollLoop(i, 3, 3, 1, Seq({Yield({acc})}), {acc}, {total});
  auto out = Unrolled(ProgramOf({n}, Seq({loop, Return({total})})));
  EXPECT_SAME_IR(out, ProgramOf({n}, Seq({Assign(total, n), Return({total})})));
}

TEST(UnrollLoops, ExpandsNestedLoopsWhoseBoundsComeFromTheOuterLoop) {
  auto i = IndexVar("i");
  auto j = IndexVar("j");
  auto inner = ForStmt::Make(j, Int(0), i, Int(1), {}, Seq({Touch({i, j})}), {}, ForKind::Unroll);
  auto program = ProgramOf({}, Seq({UnrollLoop(i, 0, 3, 1, Seq({inner}))}));
  auto expected = ProgramOf({}, Seq({Touch({Int(1), Int(0)}), Touch({Int(2), Int(0)}), Touch({Int(2), Int(1)})}));
  EXPECT_SAME_IR(Unrolled(program), expected);
}

TEST(UnrollLoops, ExpandsUnrollLoopsInsideOtherLoops) {
  auto n = IndexVar("n");
  auto k = IndexVar("k");
  auto i = IndexVar("i");
  auto x = IndexVar("x");
  auto body = Seq({UnrollLoop(i, 0, 2, 1, Seq({Assign(x, Bin(BinaryOp::Mul, k, i)), Touch({x})}))});
  auto program = ProgramOf({n}, Seq({ForStmt::Make(k, Int(0), n, Int(1), {}, body, {})}));
  auto out = Unrolled(program);

  auto x0 = IndexVar("x_0");
  auto x1 = IndexVar("x_1");
  auto expected_body = Seq({Assign(x0, Bin(BinaryOp::Mul, k, Int(0))), Touch({x0}),
                            Assign(x1, Bin(BinaryOp::Mul, k, Int(1))), Touch({x1})});
  EXPECT_SAME_IR(out, ProgramOf({n}, Seq({ForStmt::Make(k, Int(0), n, Int(1), {}, expected_body, {})})));
  EXPECT_TRUE(DefinesEachVarOnce(out));
}

TEST(UnrollLoops, RewritesTypesThatNameBodyVariables) {
  auto i = IndexVar("i");
  auto m = IndexVar("m");
  auto t = Var::Make("t", TensorType::Make({m, Int(4)}, DataType::FP32));
  auto body = Seq({Assign(m, Bin(BinaryOp::Add, i, Int(1))), Assign(t, CallOp("test.make", {m}, t->type)),
                   Touch({t})});
  auto out = Unrolled(ProgramOf({}, Seq({UnrollLoop(i, 0, 2, 1, body)})));
  auto stmts = Flatten(BodyOf(out));
  ASSERT_EQ(stmts.size(), 6u);
  for (size_t copy = 0; copy < 2; ++copy) {
    auto m_copy = As<AssignStmt>(stmts[copy * 3])->var;
    auto t_copy = As<AssignStmt>(stmts[copy * 3 + 1]);
    EXPECT_NE(m_copy, m);
    EXPECT_NE(t_copy->var, t);
    EXPECT_EQ(As<TensorType>(t_copy->var->type)->shape[0], m_copy);
    EXPECT_EQ(As<TensorType>(t_copy->value->type)->shape[0], m_copy);
  }
  EXPECT_TRUE(DefinesEachVarOnce(out));
}

TEST(UnrollLoops, RejectsBoundsThatAreNotLiterals) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto loop = ForStmt::Make(i, Int(0), n, Int(1), {}, Seq({Touch({i})}), {}, ForKind::Unroll, {},
                            Span("kernel.py", 3, 5));
  Error e = UnrollError(ProgramOf({n}, Seq({loop})));
  EXPECT_EQ(e.kind(), ErrorKind::kValue);
  EXPECT_EQ(e.span(), Span("kernel.py", 3, 5));
  EXPECT_EQ(std::string(e.what()),
            "kernel.py:3:5: UnrollLoops: the pl.unroll loop over 'i' needs literal bounds, but its stop is not an "
            "integer literal; pl.unroll needs bounds written as integer constants, use pl.range for a loop whose "
            "bounds are known only at run time");
}

TEST(UnrollLoops, RejectsBreakAndContinueButNotInNestedLoops) {
  auto i = IndexVar("i");
  auto j = IndexVar("j");
  auto nested_continue = ForStmt::Make(j, Int(0), Int(4), Int(1), {}, Seq({ContinueStmt::Make()}), {});
  auto fine = ProgramOf({}, Seq({UnrollLoop(i, 0, 2, 1, Seq({nested_continue}))}));
  EXPECT_NO_THROW(Unrolled(fine));

  auto exit = BreakStmt::Make(Span("kernel.py", 9, 13));
  auto loop = UnrollLoop(i, 0, 2, 1, Seq({IfStmt::Make(Bool(true), Seq({exit}), nullptr)}), {}, {},
                         Span("kernel.py", 8, 9));
  Error e = UnrollError(ProgramOf({}, Seq({loop})));
  EXPECT_EQ(e.kind(), ErrorKind::kValue);
  EXPECT_EQ(e.span(), Span("kernel.py", 9, 13));
  EXPECT_EQ(e.message(),
            "UnrollLoops: 'break' in the pl.unroll loop over 'i' (at kernel.py:8:9) cannot be unrolled, because every "
            "copy of an unrolled body runs; use pl.range for a loop that leaves an iteration early");
}

TEST(UnrollLoops, LimitsTheIterationCountWithAnOption) {
  auto i = IndexVar("i");
  auto program = ProgramOf({}, Seq({UnrollLoop(i, 0, 10, 1, Seq({Touch({i})}), {}, {}, Span("kernel.py", 2, 1))}));
  Error e = UnrollError(program, {{"max_iterations", int64_t{8}}});
  EXPECT_EQ(e.kind(), ErrorKind::kValue);
  EXPECT_EQ(e.message(),
            "UnrollLoops: the pl.unroll loop over 'i' has 10 iterations, more than the pass option max_iterations "
            "(8); raise max_iterations for UnrollLoops in the pipeline, or use pl.range");
  EXPECT_EQ(Flatten(BodyOf(Unrolled(program, {{"max_iterations", int64_t{10}}}))).size(), 10u);

  auto huge = ProgramOf({}, Seq({UnrollLoop(i, 0, 5000, 1, Seq({Touch({i})}))}));
  EXPECT_NE(std::string(UnrollError(huge).what())
                .find("has 5000 iterations, more than the pass option max_iterations (1024)"),
            std::string::npos);
}

TEST(UnrollLoops, RejectsInvalidOptions) {
  UnrollLoopsPass pass;
  try {
    pass.Configure({{"max_iterations", int64_t{0}}});
    FAIL() << "max_iterations = 0 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kPipeline);
    EXPECT_EQ(e.message(), "UnrollLoops option 'max_iterations' must be at least 1, got 0");
  }
  try {
    pass.Configure({{"max_iterations", std::string("many")}});
    FAIL() << "a string for an int option was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "UnrollLoops option 'max_iterations' must be an int, got str");
  }
}

TEST(UnrollLoops, ReportsABodyWithoutItsYield) {
  auto i = IndexVar("i");
  auto acc = IterArg::Make("acc", Scalar(DataType::INDEX), Int(0));
  auto total = IndexVar("total");
  auto loop = UnrollLoop(i, 0, 2, 1, Seq({Touch({acc})}), {acc}, {total}, Span("kernel.py", 4, 5));
  Error e = UnrollError(ProgramOf({}, Seq({loop, Return({total})})));
  EXPECT_EQ(e.kind(), ErrorKind::kVerification);
  EXPECT_EQ(e.message(),
            "UnrollLoops: the body of the pl.unroll loop over 'i' must end with a yield of one value per "
            "iter_arg (1), but it has no yield");
}

TEST(UnrollLoops, IsIdempotentAndLeavesOtherProgramsAlone) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto k = IndexVar("k");
  auto acc = IterArg::Make("acc", Scalar(DataType::INDEX), n);
  auto total = IndexVar("total");
  auto next = IndexVar("next");
  auto program = ProgramOf({n}, Seq({UnrollLoop(i, 0, 4, 1, Seq({Assign(next, Bin(BinaryOp::Add, acc, i)),
                                                                  Yield({next})}),
                                                {acc}, {total}),
                                     ForStmt::Make(k, Int(0), n, Int(1), {}, Seq({Touch({k})}), {}),
                                     Return({total})}));
  auto once = Unrolled(program);
  EXPECT_NE(once, program);
  EXPECT_EQ(Unrolled(once), once);
}

}  // namespace
}  // namespace pypto::test
