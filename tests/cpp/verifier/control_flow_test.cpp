// BreakContinueCheck and ReturnPosition.
#include "verifier_test_util.h"

namespace pypto::ir::verifier_test {
namespace {

StmtPtr LoopOf(ForKind kind, StmtPtr body) {
  return ForStmt::Make(V("i", IndexT()), Int(0), Int(4), Int(1), {}, std::move(body), {}, kind, {}, At(2));
}

TEST(BreakContinueCheck, BreakOutsideAnyLoop) {
  auto ds = VerifyFunction(MakeFn("f", {}, {}, MakeSeq({BreakStmt::Make(At(2))})));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "BreakContinueCheck", "BREAK_OUTSIDE_LOOP", "f", "BreakStmt", At(2),
                   "`break` outside of any loop of function 'f'; break must be inside a pl.range or while loop");
}

TEST(BreakContinueCheck, ContinueInAScopeThatIsInNoLoop) {
  auto scope = ScopeStmt::Make(ScopeKind::InCore, ContinueStmt::Make(At(3)), "", At(2));
  auto ds = VerifyFunction(MakeFn("f", {}, {}, scope));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "BreakContinueCheck", "BREAK_OUTSIDE_LOOP", "f", "ContinueStmt", At(3),
                   "`continue` outside of any loop of function 'f'; continue must be inside a pl.range or while loop");
}

TEST(BreakContinueCheck, BreakInAParallelLoop) {
  auto c = V("c", BoolT());
  auto loop = LoopOf(ForKind::Parallel, IfStmt::Make(c, BreakStmt::Make(At(4)), nullptr, {}, At(3)));
  auto ds = VerifyFunction(MakeFn("f", {c}, {}, loop));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "BreakContinueCheck", "BREAK_IN_NON_SEQUENTIAL_LOOP", "f", "BreakStmt", At(4),
                   "`break` inside a pl.parallel loop (at test.py:2:5); break is allowed only in pl.range and while "
                   "loops, whose iterations run in order: make the loop a pl.range, or guard the body with an if");
}

TEST(BreakContinueCheck, ContinueInAPipelineLoop) {
  auto ds = VerifyFunction(MakeFn("f", {}, {}, LoopOf(ForKind::Pipeline, ContinueStmt::Make(At(3)))));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "BreakContinueCheck", "BREAK_IN_NON_SEQUENTIAL_LOOP", "f", "ContinueStmt", At(3),
                   "`continue` inside a pl.pipeline loop (at test.py:2:5); continue is allowed only in pl.range and "
                   "while loops, whose iterations run in order: make the loop a pl.range, or guard the body with an "
                   "if");
}

TEST(BreakContinueCheck, BreakLeavingAScope) {
  auto scope = ScopeStmt::Make(ScopeKind::InCore, BreakStmt::Make(At(4)), "", At(3));
  auto ds = VerifyFunction(MakeFn("f", {}, {}, LoopOf(ForKind::Sequential, scope)));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "BreakContinueCheck", "BREAK_ACROSS_SCOPE", "f", "BreakStmt", At(4),
                   "`break` would leave the scope at test.py:3:5 that sits inside its loop; a scope runs once as a "
                   "whole: move the loop into the scope, or the break out of it");
}

TEST(BreakContinueCheck, BreakAndContinueInSequentialAndWhileLoops) {
  auto c = V("c", BoolT());
  auto ranged = LoopOf(ForKind::Sequential, IfStmt::Make(c, BreakStmt::Make(At(4)), nullptr, {}, At(3)));
  auto scoped = ScopeStmt::Make(ScopeKind::InCore, LoopOf(ForKind::Sequential, ContinueStmt::Make(At(6))), "", At(5));
  auto looping = WhileStmt::Make(c, {}, IfStmt::Make(c, ContinueStmt::Make(At(8)), BreakStmt::Make(At(9)), {}, At(8)),
                                 {}, At(7));
  auto ds = VerifyFunction(MakeFn("f", {c}, {}, MakeSeq({ranged, scoped, looping})));
  EXPECT_TRUE(ds.empty()) << Dump(ds);
}

TEST(ReturnPosition, ReturnFollowedByAStatement) {
  auto x = V("x", IndexT());
  auto f = MakeFn("f", {}, {}, MakeSeq({ReturnStmt::Make({}, At(2)), AssignStmt::Make(x, Int(1), At(3))}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "ReturnPosition", "MISPLACED_RETURN", "f", "ReturnStmt", At(2),
                   "a return may only be the last statement of function 'f'; early returns are not supported: carry "
                   "the value out of loops and ifs with pl.yield_ and return it at the end");
}

TEST(ReturnPosition, ReturnInsideALoop) {
  auto ds = VerifyFunction(MakeFn("f", {}, {}, LoopOf(ForKind::Sequential, ReturnStmt::Make({}, At(3)))));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  EXPECT_EQ(ds[0].code, "MISPLACED_RETURN");
  EXPECT_EQ(ds[0].span, At(3));
}

TEST(ReturnPosition, FunctionWithReturnTypesButNoReturn) {
  auto x = V("x", IndexT());
  auto ds = VerifyFunction(MakeFn("f", {}, {IndexT()}, AssignStmt::Make(x, Int(1), At(2))));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "ReturnPosition", "MISSING_RETURN", "f", "AssignStmt", At(2),
                   "function 'f' declares 1 return type(s) but its body does not end with a return; end it with "
                   "`return` of one value per declared type");
}

TEST(ReturnPosition, ReturnEndingANestedSequenceIsLast) {
  auto x = V("x", IndexT());
  auto body = SeqStmts::Make({AssignStmt::Make(x, Int(1), At(2)), SeqStmts::Make({ReturnStmt::Make({x}, At(3))})});
  auto ds = VerifyFunction(MakeFn("f", {}, {IndexT()}, body));
  EXPECT_TRUE(ds.empty()) << Dump(ds);
}

}  // namespace
}  // namespace pypto::ir::verifier_test
