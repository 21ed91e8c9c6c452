#include <gtest/gtest.h>

#include <string>

#include "convert_to_ssa.h"
#include "pypto/ir/printer.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"
#include "support/pass_test_util.h"

namespace pypto::test {
namespace {

using passes::ConvertToSSAPass;

const TypePtr kIndex = Scalar(DataType::INDEX);

ProgramPtr Convert(const ProgramPtr& program) {
  ConvertToSSAPass pass;
  pass::PassContext ctx;
  return pass.Run(program, ctx);
}

// Converts a program that is not in SSA form and checks that the result is.
ProgramPtr Converted(const ProgramPtr& program) {
  ProgramPtr out = Convert(program);
  EXPECT_VALID_IR(out);
  return out;
}

// The message of the error the pass raises on `program`.
std::string ConvertError(const ProgramPtr& program) {
  try {
    Convert(program);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kValue);
    return e.message();
  }
  ADD_FAILURE() << "ConvertToSSA accepted the program";
  return "";
}

#define EXPECT_CONTAINS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

Span Line(int line) { return Span("k.py", line, 5, line, 20); }
StmtPtr Touch(std::vector<ExprPtr> args) { return Eval(CallOp("test.touch", std::move(args))); }
ExprPtr Add(const ExprPtr& a, const ExprPtr& b) { return Bin(BinaryOp::Add, a, b); }
ExprPtr Less(const ExprPtr& a, const ExprPtr& b) { return Bin(BinaryOp::Lt, a, b); }
StmtPtr If(const ExprPtr& c, StmtPtr then_body, StmtPtr else_body = nullptr, std::vector<VarPtr> rvs = {},
           Span span = Span()) {
  return IfStmt::Make(c, std::move(then_body), std::move(else_body), std::move(rvs), std::move(span));
}
StmtPtr Range(const VarPtr& i, const ExprPtr& start, const ExprPtr& stop, StmtPtr body,
              std::vector<IterArgPtr> iter_args = {}, std::vector<VarPtr> rvs = {}, Span span = Span()) {
  return ForStmt::Make(i, start, stop, Int(1), std::move(iter_args), std::move(body), std::move(rvs),
                       ForKind::Sequential, {}, std::move(span));
}
IterArgPtr Carried(const std::string& name, const ExprPtr& init) { return IterArg::Make(name, kIndex, init); }
ProgramPtr Returning(std::vector<VarPtr> params, std::vector<StmtPtr> body) {
  return ProgramOf(std::move(params), Seq(std::move(body)), {kIndex});
}

TEST(ConvertToSSA, DescribesItself) {
  ConvertToSSAPass pass;
  EXPECT_EQ(pass.name(), "ConvertToSSA");
  EXPECT_TRUE(pass.required().empty());
  EXPECT_TRUE(pass.produced().Has(pass::IRProperty::SSAForm));
}

TEST(ConvertToSSA, RenamesStraightLineReassignments) {
  auto n = IndexVar("n");
  auto x = IndexVar("x");
  auto program = Returning({n}, {Assign(x, Int(1)), Assign(x, Add(x, n)), Assign(n, Add(x, n)), Return({n})});
  auto x1 = IndexVar("x1");
  auto n1 = IndexVar("n1");
  auto expected = Returning({n}, {Assign(x, Int(1)), Assign(x1, Add(x, n)), Assign(n1, Add(x1, n)), Return({n1})});
  auto out = Converted(program);
  EXPECT_SAME_IR(out, expected);
  const std::string printed = PrintProgram(out);
  EXPECT_CONTAINS(printed, "x__ssa_v1");
  EXPECT_CONTAINS(printed, "n__ssa_v1");
}

TEST(ConvertToSSA, MergesBothBranchesOfAnIfWithAPhi) {
  auto c = ScalarVar("c", DataType::BOOL);
  auto x = IndexVar("x");
  auto program = Returning({c}, {Assign(x, Int(0)), If(c, Seq({Assign(x, Int(1))}), Seq({Assign(x, Int(2))})),
                                 Return({x})});
  auto x1 = IndexVar("x1");
  auto x2 = IndexVar("x2");
  auto phi = IndexVar("phi");
  auto expected = Returning({c}, {Assign(x, Int(0)),
                                  If(c, Seq({Assign(x1, Int(1)), Yield({x1})}), Seq({Assign(x2, Int(2)), Yield({x2})}),
                                     {phi}),
                                  Return({phi})});
  auto out = Converted(program);
  EXPECT_SAME_IR(out, expected);
  EXPECT_CONTAINS(PrintProgram(out), "x__phi_v3");
}

TEST(ConvertToSSA, AnIfWithoutElseYieldsTheIncomingValue) {
  auto c = ScalarVar("c", DataType::BOOL);
  auto x = IndexVar("x");
  auto program = Returning({c}, {Assign(x, Int(0)), If(c, Seq({Assign(x, Add(x, Int(1)))})), Return({x})});
  auto x1 = IndexVar("x1");
  auto phi = IndexVar("phi");
  auto expected = Returning(
      {c}, {Assign(x, Int(0)), If(c, Seq({Assign(x1, Add(x, Int(1))), Yield({x1})}), Seq({Yield({x})}), {phi}),
            Return({phi})});
  EXPECT_SAME_IR(Converted(program), expected);
}

TEST(ConvertToSSA, AVariableFirstAssignedInBothBranchesGetsAPhi) {
  auto c = ScalarVar("c", DataType::BOOL);
  auto y = IndexVar("y");
  auto program = Returning({c}, {If(c, Seq({Assign(y, Int(1))}), Seq({Assign(y, Int(2))})), Return({y})});
  auto y1 = IndexVar("y1");
  auto phi = IndexVar("phi");
  auto expected = Returning(
      {c}, {If(c, Seq({Assign(y, Int(1)), Yield({y})}), Seq({Assign(y1, Int(2)), Yield({y1})}), {phi}), Return({phi})});
  EXPECT_SAME_IR(Converted(program), expected);
}

TEST(ConvertToSSA, BranchValuesNotReadAfterTheIfGetNoPhi) {
  auto c = ScalarVar("c", DataType::BOOL);
  auto x = IndexVar("x");
  auto t = IndexVar("t");
  auto program = Returning({c}, {Assign(x, Int(0)),
                                 If(c, Seq({Assign(t, Int(1)), Assign(x, t), Touch({x})}), Seq({Touch({x})})),
                                 Assign(x, Int(5)), Return({x})});
  auto x1 = IndexVar("x1");
  auto x2 = IndexVar("x2");
  auto expected = Returning({c}, {Assign(x, Int(0)),
                                  If(c, Seq({Assign(t, Int(1)), Assign(x1, t), Touch({x1})}), Seq({Touch({x})})),
                                  Assign(x2, Int(5)), Return({x2})});
  EXPECT_SAME_IR(Converted(program), expected);
}

TEST(ConvertToSSA, CarriesAReassignedVariableThroughAForLoop) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto acc = IndexVar("acc");
  auto program =
      Returning({n}, {Assign(acc, Int(0)), Range(i, Int(0), n, Seq({Assign(acc, Add(acc, i))})), Return({acc})});
  auto it = Carried("it", acc);
  auto next = IndexVar("next");
  auto rv = IndexVar("rv");
  auto expected = Returning({n}, {Assign(acc, Int(0)),
                                  Range(i, Int(0), n, Seq({Assign(next, Add(it, i)), Yield({next})}), {it}, {rv}),
                                  Return({rv})});
  auto out = Converted(program);
  EXPECT_SAME_IR(out, expected);
  const std::string printed = PrintProgram(out);
  EXPECT_CONTAINS(printed, "acc__iter_v1");
  EXPECT_CONTAINS(printed, "acc__rv_v2");
}

TEST(ConvertToSSA, CarriesThroughNestedLoops) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto j = IndexVar("j");
  auto acc = IndexVar("acc");
  auto program = Returning(
      {n}, {Assign(acc, Int(0)), Range(i, Int(0), n, Seq({Range(j, Int(0), i, Seq({Assign(acc, Add(acc, j))}))})),
            Return({acc})});
  auto outer = Carried("outer", acc);
  auto inner = Carried("inner", outer);
  auto next = IndexVar("next");
  auto inner_rv = IndexVar("inner_rv");
  auto outer_rv = IndexVar("outer_rv");
  auto expected = Returning(
      {n}, {Assign(acc, Int(0)),
            Range(i, Int(0), n,
                  Seq({Range(j, Int(0), i, Seq({Assign(next, Add(inner, j)), Yield({next})}), {inner}, {inner_rv}),
                       Yield({inner_rv})}),
                  {outer}, {outer_rv}),
            Return({outer_rv})});
  EXPECT_SAME_IR(Converted(program), expected);
}

TEST(ConvertToSSA, CarriesThroughAWhileLoopAndItsCondition) {
  auto n = IndexVar("n");
  auto k = IndexVar("k");
  auto program = Returning({n}, {Assign(k, Int(0)),
                                 WhileStmt::Make(Less(k, n), {}, Seq({Assign(k, Add(k, Int(2)))}), {}),
                                 Return({k})});
  auto it = Carried("it", k);
  auto next = IndexVar("next");
  auto rv = IndexVar("rv");
  auto expected = Returning(
      {n}, {Assign(k, Int(0)), WhileStmt::Make(Less(it, n), {it}, Seq({Assign(next, Add(it, Int(2))), Yield({next})}),
                                               {rv}),
            Return({rv})});
  EXPECT_SAME_IR(Converted(program), expected);
}

TEST(ConvertToSSA, AnIfInsideALoopFeedsTheCarry) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto acc = IndexVar("acc");
  auto program = Returning(
      {n}, {Assign(acc, Int(0)),
            Range(i, Int(0), n, Seq({If(Less(i, Int(3)), Seq({Assign(acc, Add(acc, i))}))})), Return({acc})});
  auto it = Carried("it", acc);
  auto next = IndexVar("next");
  auto phi = IndexVar("phi");
  auto rv = IndexVar("rv");
  auto expected = Returning(
      {n}, {Assign(acc, Int(0)),
            Range(i, Int(0), n,
                  Seq({If(Less(i, Int(3)), Seq({Assign(next, Add(it, i)), Yield({next})}), Seq({Yield({it})}), {phi}),
                       Yield({phi})}),
                  {it}, {rv}),
            Return({rv})});
  EXPECT_SAME_IR(Converted(program), expected);
}

TEST(ConvertToSSA, KeepsExistingLoopStateAndAddsToIt) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto x = IndexVar("x");
  auto sum = Carried("sum", Int(0));
  auto next_sum = IndexVar("next_sum");
  auto total = IndexVar("total");
  auto program = Returning(
      {n}, {Assign(x, Int(1)),
            Range(i, Int(0), n, Seq({Assign(next_sum, Add(sum, x)), Assign(x, Add(x, x)), Yield({next_sum})}), {sum},
                  {total}),
            Return({Add(total, x)})});
  auto it = Carried("it", x);
  auto x1 = IndexVar("x1");
  auto rv = IndexVar("rv");
  auto expected = Returning(
      {n}, {Assign(x, Int(1)),
            Range(i, Int(0), n, Seq({Assign(next_sum, Add(sum, it)), Assign(x1, Add(it, it)), Yield({next_sum, x1})}),
                  {sum, it}, {total, rv}),
            Return({Add(total, rv)})});
  EXPECT_SAME_IR(Converted(program), expected);
}

TEST(ConvertToSSA, AVariableReassignedInALoopButNotReadLaterIsNotCarried) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto x = IndexVar("x");
  auto program = Returning({n}, {Assign(x, Int(0)), Touch({x}), Range(i, Int(0), n, Seq({Assign(x, i), Touch({x})})),
                                 Return({n})});
  auto x1 = IndexVar("x1");
  auto expected = Returning({n}, {Assign(x, Int(0)), Touch({x}),
                                  Range(i, Int(0), n, Seq({Assign(x1, i), Touch({x1})})), Return({n})});
  EXPECT_SAME_IR(Converted(program), expected);
}

TEST(ConvertToSSA, ALoopThatRunsAtLeastOnceCarriesAVariableItDefinesOut) {
  auto i = IndexVar("i");
  auto last = IndexVar("last");
  auto program = Returning({}, {Range(i, Int(0), Int(4), Seq({Assign(last, Add(i, i))})), Return({last})});
  auto it = Carried("it", Int(0));
  auto rv = IndexVar("rv");
  auto expected = Returning(
      {}, {Range(i, Int(0), Int(4), Seq({Assign(last, Add(i, i)), Yield({last})}), {it}, {rv}), Return({rv})});
  EXPECT_SAME_IR(Converted(program), expected);
}

TEST(ConvertToSSA, ScopesDoNotHideDefinitions) {
  auto x = IndexVar("x");
  auto y = IndexVar("y");
  auto program = Returning(
      {}, {Assign(x, Int(0)), ScopeStmt::Make(ScopeKind::InCore, Seq({Assign(x, Add(x, Int(1))), Assign(y, x)})),
           Return({Add(x, y)})});
  auto x1 = IndexVar("x1");
  auto expected = Returning(
      {}, {Assign(x, Int(0)), ScopeStmt::Make(ScopeKind::InCore, Seq({Assign(x1, Add(x, Int(1))), Assign(y, x1)})),
           Return({Add(x1, y)})});
  EXPECT_SAME_IR(Converted(program), expected);
}

TEST(ConvertToSSA, RenamesALoopVariableUsedByTwoLoops) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto program = Returning({n}, {Range(i, Int(0), n, Seq({Touch({i})})), Range(i, Int(0), n, Seq({Touch({i})})),
                                 Return({n})});
  auto i1 = IndexVar("i1");
  auto expected = Returning({n}, {Range(i, Int(0), n, Seq({Touch({i})})), Range(i1, Int(0), n, Seq({Touch({i1})})),
                                  Return({n})});
  EXPECT_SAME_IR(Converted(program), expected);
}

// A program the parser could have produced: already SSA, with an if phi, a
// loop with iter_args, a while loop and a scope.
ProgramPtr SsaProgram() {
  auto n = IndexVar("n");
  auto c = ScalarVar("c", DataType::BOOL);
  auto i = IndexVar("i");
  auto acc = Carried("acc", Int(0));
  auto next = IndexVar("next");
  auto total = IndexVar("total");
  auto a = IndexVar("a");
  auto b = IndexVar("b");
  auto r = IndexVar("r");
  auto k = Carried("k", total);
  auto k1 = IndexVar("k1");
  auto kr = IndexVar("kr");
  auto s = IndexVar("s");
  return Returning(
      {n, c}, {Range(i, Int(0), n, Seq({Assign(next, Add(acc, i)), Yield({next})}), {acc}, {total}),
               If(c, Seq({Assign(a, Add(total, Int(1))), Yield({a})}), Seq({Assign(b, Int(2)), Yield({b})}), {r}),
               WhileStmt::Make(Less(k, n), {k}, Seq({Assign(k1, Add(k, r)), Yield({k1})}), {kr}),
               ScopeStmt::Make(ScopeKind::InCore, Seq({Assign(s, Add(kr, Int(1)))})), Return({s})});
}

TEST(ConvertToSSA, LeavesSsaInputAsItIs) {
  auto program = SsaProgram();
  EXPECT_VALID_IR(program);
  EXPECT_EQ(Convert(program), program);
}

TEST(ConvertToSSA, RunningTwiceChangesNothing) {
  auto n = IndexVar("n");
  auto c = ScalarVar("c", DataType::BOOL);
  auto i = IndexVar("i");
  auto x = IndexVar("x");
  auto program = Returning(
      {n, c}, {Assign(x, Int(0)), Range(i, Int(0), n, Seq({If(c, Seq({Assign(x, Add(x, i))})), Assign(x, Add(x, x))})),
               Assign(x, Add(x, n)), Return({x})});
  auto once = Converted(program);
  EXPECT_NE(once, program);
  EXPECT_EQ(Convert(once), once);
}

TEST(ConvertToSSA, RejectsAVariableAssignedInOnlyOneBranch) {
  auto c = ScalarVar("c", DataType::BOOL);
  auto y = IndexVar("y");
  auto program = Returning({c}, {If(c, Seq({Assign(y, Int(1))}), nullptr, {}, Line(3)),
                                 ReturnStmt::Make({y}, Line(5))});
  const std::string message = ConvertError(program);
  EXPECT_CONTAINS(message, "in function 'main'");
  EXPECT_CONTAINS(message, "'y' is used at k.py:5:5");
  EXPECT_CONTAINS(message, "assigned only in the then branch of the if at k.py:3:5");
  EXPECT_CONTAINS(message, "assign 'y' before the if, or in both branches");
}

TEST(ConvertToSSA, RejectsAVariableFirstAssignedInALoopThatMayNotRun) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto last = IndexVar("last");
  auto program = Returning({n}, {Range(i, Int(0), n, Seq({Assign(last, i)}), {}, {}, Line(2)),
                                 ReturnStmt::Make({last}, Line(4))});
  const std::string message = ConvertError(program);
  EXPECT_CONTAINS(message, "'last' is used at k.py:4:5");
  EXPECT_CONTAINS(message, "assigned only inside the for loop over 'i' at k.py:2:5, which may run zero times");
  EXPECT_CONTAINS(message, "assign 'last' before the loop");
}

TEST(ConvertToSSA, RejectsAReadBeforeTheFirstAssignmentInALoop) {
  auto i = IndexVar("i");
  auto x = IndexVar("x");
  auto program = Returning(
      {}, {Range(i, Int(0), Int(4), Seq({AssignStmt::Make(x, Add(x, i), Line(3))}), {}, {}, Line(2)), Return({x})});
  const std::string message = ConvertError(program);
  EXPECT_CONTAINS(message, "'x' is used at k.py:3:5");
  EXPECT_CONTAINS(message, "read before it is assigned in the first iteration of the for loop over 'i'");
}

TEST(ConvertToSSA, RejectsAUseBeforeAnyAssignment) {
  auto x = IndexVar("x");
  auto program = Returning({}, {EvalStmt::Make(CallOp("test.touch", {x}), Line(2)), Assign(x, Int(1)), Return({x})});
  const std::string message = ConvertError(program);
  EXPECT_CONTAINS(message, "'x' is used at k.py:2:5");
  EXPECT_CONTAINS(message, "assign 'x' before this use");
}

TEST(ConvertToSSA, RejectsACarriedVariableInALoopWithBreak) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto acc = IndexVar("acc");
  auto program = Returning(
      {n}, {Assign(acc, Int(0)),
            Range(i, Int(0), n, Seq({Assign(acc, Add(acc, i)), If(Less(acc, Int(9)), Seq({BreakStmt::Make(Line(4))}))}),
                  {}, {}, Line(2)),
            Return({acc})});
  const std::string message = ConvertError(program);
  EXPECT_CONTAINS(message, "'acc' is reassigned in the for loop over 'i' at k.py:2:5");
  EXPECT_CONTAINS(message, "the break at k.py:4:5");
}

TEST(ConvertToSSA, ABreakIsFineWhenNothingIsCarried) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto t = IndexVar("t");
  auto program = Returning(
      {n}, {Range(i, Int(0), n, Seq({Assign(t, Add(i, i)), If(Less(t, Int(9)), Seq({BreakStmt::Make()})),
                                     Assign(t, Add(t, i)), Touch({t})})),
            Return({n})});
  auto t1 = IndexVar("t1");
  auto expected = Returning(
      {n}, {Range(i, Int(0), n, Seq({Assign(t, Add(i, i)), If(Less(t, Int(9)), Seq({BreakStmt::Make()})),
                                     Assign(t1, Add(t, i)), Touch({t1})})),
            Return({n})});
  EXPECT_SAME_IR(Converted(program), expected);
}

TEST(ConvertToSSA, CarriesThroughLoopsOfEveryKind) {
  for (ForKind kind : {ForKind::Sequential, ForKind::Parallel, ForKind::Unroll, ForKind::Pipeline}) {
    auto i = IndexVar("i");
    auto acc = IndexVar("acc");
    auto program = Returning(
        {}, {Assign(acc, Int(1)),
             ForStmt::Make(i, Int(0), Int(4), Int(1), {}, Seq({Assign(acc, Add(acc, i))}), {}, kind), Return({acc})});
    auto out = Converted(program);
    auto loop = As<ForStmt>(Flatten(BodyOf(out))[1]);
    ASSERT_NE(loop, nullptr);
    EXPECT_EQ(loop->for_kind, kind);
    EXPECT_EQ(loop->iter_args.size(), 1u);
    EXPECT_EQ(loop->return_vars.size(), 1u);
  }
}

TEST(ConvertToSSA, ConvertsEveryFunctionOfTheProgram) {
  auto x = IndexVar("x");
  auto y = IndexVar("y");
  auto f = Function::Make("f", FunctionType::Opaque, {}, {}, {kIndex},
                          Seq({Assign(x, Int(1)), Assign(x, Add(x, x)), Return({x})}));
  auto g = Function::Make("g", FunctionType::Opaque, {}, {}, {kIndex}, Seq({Assign(y, Int(2)), Return({y})}));
  auto program = Program::Make("two", {f, g});
  auto out = Converted(program);
  EXPECT_NE(out->Find("f"), f);
  EXPECT_EQ(out->Find("g"), g);
}

TEST(ConvertToSSA, RejectsALoopVariableReadAfterItsLoop) {
  auto n = IndexVar("n");
  auto i = IndexVar("i");
  auto program = Returning({n}, {Range(i, Int(0), n, Seq({Touch({i})}), {}, {}, Line(2)),
                                 ReturnStmt::Make({i}, Line(4))});
  const std::string message = ConvertError(program);
  EXPECT_CONTAINS(message, "'i' is used at k.py:4:5");
  EXPECT_CONTAINS(message, "is the loop variable of the for loop over 'i' at k.py:2:5");
}

TEST(ConvertToSSA, RejectsACarriedVariableInAWhileLoopWithContinue) {
  auto n = IndexVar("n");
  auto k = IndexVar("k");
  auto program = Returning(
      {n}, {Assign(k, Int(0)),
            WhileStmt::Make(Less(k, n), {},
                            Seq({Assign(k, Add(k, Int(1))), If(Less(k, Int(3)), Seq({ContinueStmt::Make(Line(5))})),
                                 Touch({k})}),
                            {}, Line(3)),
            Return({k})});
  const std::string message = ConvertError(program);
  EXPECT_CONTAINS(message, "'k' is reassigned in the while loop at k.py:3:5");
  EXPECT_CONTAINS(message, "the continue at k.py:5:5");
  EXPECT_CONTAINS(message, "restructure the loop without continue");
}

TEST(ConvertToSSA, RejectsAVariableNotAssignedOnEveryPathOfALoopThatRunsOnce) {
  auto i = IndexVar("i");
  auto last = IndexVar("last");
  auto program = Returning(
      {}, {Range(i, Int(0), Int(4), Seq({If(Less(i, Int(2)), Seq({Assign(last, i)}), nullptr, {}, Line(3))}), {}, {},
                 Line(2)),
           Return({last})});
  const std::string message = ConvertError(program);
  EXPECT_CONTAINS(message, "'last' is carried by the for loop over 'i' at k.py:2:5");
  EXPECT_CONTAINS(message, "has no value at the end of its body");
  EXPECT_CONTAINS(message, "assigned only in the then branch of the if at k.py:3:5");
}

}  // namespace
}  // namespace pypto::test
