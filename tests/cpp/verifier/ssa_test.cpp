// SSAVerify and UseAfterDef: definitions, scoping and yields.
#include "verifier_test_util.h"

namespace pypto::ir::verifier_test {
namespace {

// The pieces of
//   acc0 = 0                                                  # line 2
//   for i, (acc,) in pl.range(0, 4, 1, init_values=(acc0,)):  # line 3
//       nxt = acc + i                                         # line 4
//       total = pl.yield_(nxt)                                # line 5
struct SumLoop {
  VarPtr acc0 = V("acc0", IndexT());
  VarPtr i = V("i", IndexT());
  IterArgPtr acc = IterArg::Make("acc", IndexT(), acc0);
  VarPtr nxt = V("nxt", IndexT());
  VarPtr total = V("total", IndexT());

  StmtPtr Init() const { return AssignStmt::Make(acc0, Int(0), At(2)); }
  StmtPtr Step() const { return AssignStmt::Make(nxt, BinaryExpr::Make(BinaryOp::Add, acc, i), At(4)); }
  StmtPtr Loop(StmtPtr body, std::vector<VarPtr> return_vars) const {
    return ForStmt::Make(i, Int(0), Int(4), Int(1), {acc}, std::move(body), std::move(return_vars),
                         ForKind::Sequential, {}, At(3));
  }
  StmtPtr Loop() const { return Loop(MakeSeq({Step(), YieldStmt::Make({nxt}, At(5))}), {total}); }
};

TEST(SSAVerify, SumLoopIsValid) {
  SumLoop s;
  auto f = MakeFn("f", {}, {IndexT()}, MakeSeq({s.Init(), s.Loop(), ReturnStmt::Make({s.total}, At(6))}));
  EXPECT_TRUE(VerifyFunction(f).empty()) << Dump(VerifyFunction(f));
}

TEST(SSAVerify, VariableAssignedTwice) {
  auto x = V("x", IndexT());
  auto f = MakeFn("f", {}, {},
                  MakeSeq({AssignStmt::Make(x, Int(1), At(2)), AssignStmt::Make(x, Int(2), At(3))}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "MULTIPLE_ASSIGNMENT", "f", "AssignStmt", At(3),
                   "'x' is defined more than once (first by the AssignStmt at test.py:2:5); in SSA form every "
                   "variable has exactly one definition: define a new variable here");
}

TEST(SSAVerify, ParameterReassigned) {
  auto n = V("n", IndexT());
  auto f = MakeFn("f", {n}, {}, AssignStmt::Make(n, Int(0), At(2)));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "MULTIPLE_ASSIGNMENT", "f", "AssignStmt", At(2),
                   "'n' is defined more than once (first by the parameter list of function 'f'); in SSA form every "
                   "variable has exactly one definition: define a new variable here");
}

TEST(SSAVerify, IterArgBoundByTwoLoops) {
  SumLoop s;
  auto j = V("j", IndexT());
  auto again = V("again", IndexT());
  auto second = ForStmt::Make(j, Int(0), Int(4), Int(1), {s.acc}, YieldStmt::Make({s.acc0}, At(8)), {again},
                              ForKind::Sequential, {}, At(7));
  auto f = MakeFn("f", {}, {}, MakeSeq({s.Init(), s.Loop(), second}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "MULTIPLE_ASSIGNMENT", "f", "ForStmt", At(7),
                   "'acc' is defined more than once (first by the ForStmt at test.py:3:5); in SSA form every "
                   "variable has exactly one definition: define a new variable here");
}

TEST(UseAfterDef, VariableNeverDefined) {
  auto x = V("x", IndexT());
  auto y = V("y", IndexT());
  auto f = MakeFn("f", {}, {}, AssignStmt::Make(x, BinaryExpr::Make(BinaryOp::Add, y, Int(1)), At(2)));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "UseAfterDef", "UNDEFINED_VAR", "f", "AssignStmt", At(2),
                   "'y' is not defined in function 'f': it is not a parameter and no statement defines it; pass it "
                   "in as a parameter, or assign it before this use");
}

TEST(UseAfterDef, VariableUsedBeforeItsAssignment) {
  auto x = V("x", IndexT());
  auto y = V("y", IndexT());
  auto f = MakeFn("f", {}, {},
                  MakeSeq({AssignStmt::Make(x, BinaryExpr::Make(BinaryOp::Mul, y, y), At(2)),
                           AssignStmt::Make(y, Int(1), At(3))}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << "one report per variable and statement\n" << Dump(ds);
  ExpectDiagnostic(ds[0], "UseAfterDef", "USE_BEFORE_DEF", "f", "AssignStmt", At(2),
                   "'y' is used before its definition by the AssignStmt at test.py:3:5; define it before this use");
}

TEST(UseAfterDef, ReturnVarUsedInsideItsOwnLoop) {
  SumLoop s;
  auto body = MakeSeq({AssignStmt::Make(s.nxt, BinaryExpr::Make(BinaryOp::Add, s.acc, s.total), At(4)),
                       YieldStmt::Make({s.nxt}, At(5))});
  auto f = MakeFn("f", {}, {}, MakeSeq({s.Init(), s.Loop(body, {s.total})}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "UseAfterDef", "USE_BEFORE_DEF", "f", "AssignStmt", At(4),
                   "'total' is used before its definition by the ForStmt at test.py:3:5; define it before this use");
}

TEST(SSAVerify, LoopBodyVariableUsedAfterTheLoop) {
  auto i = V("i", IndexT());
  auto t = V("t", IndexT());
  auto u = V("u", IndexT());
  auto loop = ForStmt::Make(i, Int(0), Int(4), Int(1), {},
                            AssignStmt::Make(t, BinaryExpr::Make(BinaryOp::Add, i, Int(1)), At(3)), {},
                            ForKind::Sequential, {}, At(2));
  auto f = MakeFn("f", {}, {}, MakeSeq({loop, AssignStmt::Make(u, t, At(4))}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "SCOPE_VIOLATION", "f", "AssignStmt", At(4),
                   "'t' is defined in the body of the ForStmt at test.py:2:5 and is not visible after it; values "
                   "leave a loop only through its iter_args: yield the value and use the matching return var");
}

TEST(SSAVerify, IterArgUsedAfterTheLoop) {
  SumLoop s;
  auto r = V("r", IndexT());
  auto f = MakeFn("f", {}, {}, MakeSeq({s.Init(), s.Loop(), AssignStmt::Make(r, s.acc, At(6))}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "SCOPE_VIOLATION", "f", "AssignStmt", At(6),
                   "'acc' is an iter_arg of the ForStmt at test.py:3:5 and is visible only inside that loop; after "
                   "the loop use its return var 'total'");
}

TEST(SSAVerify, LoopVariableUsedAfterTheLoop) {
  SumLoop s;
  auto r = V("r", IndexT());
  auto f = MakeFn("f", {}, {}, MakeSeq({s.Init(), s.Loop(), AssignStmt::Make(r, s.i, At(6))}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "SCOPE_VIOLATION", "f", "AssignStmt", At(6),
                   "'i' is the loop variable of the ForStmt at test.py:3:5 and is visible only inside that loop");
}

TEST(SSAVerify, IfBranchVariableUsedAfterTheIf) {
  auto c = V("c", BoolT());
  auto t = V("t", IndexT());
  auto u = V("u", IndexT());
  auto branch = IfStmt::Make(c, AssignStmt::Make(t, Int(1), At(3)), nullptr, {}, At(2));
  auto f = MakeFn("f", {c}, {}, MakeSeq({branch, AssignStmt::Make(u, t, At(4))}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "SCOPE_VIOLATION", "f", "AssignStmt", At(4),
                   "'t' is defined in the then branch of the IfStmt at test.py:2:5 and is not visible after it; "
                   "values leave an if only through its return_vars: yield the value from both branches and use the "
                   "return var");
}

TEST(SSAVerify, DynamicDimensionsOfParameterTypesAreDefined) {
  auto n = V("N", IndexT());
  auto x = V("x", TensorType::Make({n, Int(64)}, DataType::FP32));
  auto i = V("i", IndexT());
  auto t = V("t", IndexT());
  auto loop = ForStmt::Make(i, Int(0), n, Int(1), {}, AssignStmt::Make(t, BinaryExpr::Make(BinaryOp::Mul, i, n), At(3)),
                            {}, ForKind::Sequential, {}, At(2));
  auto ds = VerifyFunction(MakeFn("f", {x}, {}, loop));
  EXPECT_TRUE(ds.empty()) << Dump(ds);
}

TEST(SSAVerify, DynamicDimensionReassigned) {
  auto n = V("N", IndexT());
  auto x = V("x", TensorType::Make({n, Int(64)}, DataType::FP32));
  auto ds = VerifyFunction(MakeFn("f", {x}, {}, AssignStmt::Make(n, Int(8), At(2))));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "MULTIPLE_ASSIGNMENT", "f", "AssignStmt", At(2),
                   "'N' is defined more than once (first by the signature of function 'f'); in SSA form every "
                   "variable has exactly one definition: define a new variable here");
}

// ---------------------------------------------------------------- yields

TEST(SSAVerify, LoopWithIterArgsMissingItsYield) {
  SumLoop s;
  auto f = MakeFn("f", {}, {}, MakeSeq({s.Init(), s.Loop(s.Step(), {s.total})}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "MISSING_YIELD", "f", "ForStmt", At(3),
                   "the body of the ForStmt at test.py:3:5 does not end with a yield, but the ForStmt at "
                   "test.py:3:5 has 1 iter_arg(s) (acc); end it with pl.yield_(...) giving one value per iter_arg");
}

TEST(SSAVerify, YieldWithTooManyValues) {
  SumLoop s;
  auto body = MakeSeq({s.Step(), YieldStmt::Make({s.nxt, s.nxt}, At(5))});
  auto f = MakeFn("f", {}, {}, MakeSeq({s.Init(), s.Loop(body, {s.total})}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "YIELD_COUNT_MISMATCH", "f", "YieldStmt", At(5),
                   "the yield ending the body of the ForStmt at test.py:3:5 gives 2 value(s) but the ForStmt at "
                   "test.py:3:5 has 1 iter_arg(s) (acc); yield one value per iter_arg");
}

TEST(SSAVerify, YieldOfTheWrongType) {
  SumLoop s;
  auto body = MakeSeq({s.Step(), YieldStmt::Make({Float(1.0)}, At(5))});
  auto f = MakeFn("f", {}, {}, MakeSeq({s.Init(), s.Loop(body, {s.total})}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "YIELD_TYPE_MISMATCH", "f", "YieldStmt", At(5),
                   "yield value 0 has type Scalar[FP32] but iter_arg 'acc' has type Scalar[INDEX]; yield a value of "
                   "the iter_arg's type");
}

// Before InferTileMemorySpace a carried tile may have no space yet; a value
// whose space is already known (a matmul result in Acc) may flow into it.
TEST(SSAVerify, CarriedTileWithOpenSpaceAcceptsAnySpace) {
  auto open = TileType::Make({16, 16}, DataType::FP32);
  auto acc_tile = TileType::Make({16, 16}, DataType::FP32, MemorySpace::Acc);
  auto init = V("init", acc_tile);
  auto i = V("i", IndexT());
  auto carry = IterArg::Make("carry", open, init);
  auto result = V("result", open);
  auto loop = ForStmt::Make(i, Int(0), Int(4), Int(1), {carry}, YieldStmt::Make({init}, At(4)), {result},
                            ForKind::Sequential, {}, At(3));
  auto f = MakeFn("f", {init}, {}, loop);
  EXPECT_TRUE(VerifyFunction(f).empty()) << Dump(VerifyFunction(f));
}

TEST(SSAVerify, CarriedTileInVecRejectsAnAccValue) {
  auto vec_tile = TileType::Make({16, 16}, DataType::FP32, MemorySpace::Vec);
  auto acc_tile = TileType::Make({16, 16}, DataType::FP32, MemorySpace::Acc);
  auto init = V("init", vec_tile);
  auto other = V("other", acc_tile);
  auto i = V("i", IndexT());
  auto carry = IterArg::Make("carry", vec_tile, init);
  auto result = V("result", vec_tile);
  auto loop = ForStmt::Make(i, Int(0), Int(4), Int(1), {carry}, YieldStmt::Make({other}, At(4)), {result},
                            ForKind::Sequential, {}, At(3));
  auto f = MakeFn("f", {init, other}, {}, loop);
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  EXPECT_EQ(ds[0].code, "YIELD_TYPE_MISMATCH");
}

TEST(SSAVerify, MoreReturnVarsThanIterArgs) {
  SumLoop s;
  auto extra = V("extra", IndexT());
  auto f = MakeFn("f", {}, {},
                  MakeSeq({s.Init(), s.Loop(MakeSeq({s.Step(), YieldStmt::Make({s.nxt}, At(5))}), {s.total, extra})}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "ITER_ARGS_RETURN_VARS_MISMATCH", "f", "ForStmt", At(3),
                   "the ForStmt at test.py:3:5 has 1 iter_arg(s) (acc) but 2 return var(s) (total, extra); every "
                   "iter_arg needs exactly one return var that holds its value after the loop");
}

TEST(SSAVerify, IterArgStartsFromAValueOfAnotherType) {
  SumLoop s;
  s.acc0 = V("acc0", Fp32T());
  s.acc = IterArg::Make("acc", IndexT(), s.acc0);
  auto f = MakeFn("f", {}, {}, MakeSeq({AssignStmt::Make(s.acc0, Float(0.0), At(2)), s.Loop()}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "ITER_ARG_TYPE_MISMATCH", "f", "ForStmt", At(3),
                   "iter_arg 'acc' has type Scalar[INDEX] but its initial value has type Scalar[FP32]; start it from "
                   "a value of its own type");
}

TEST(SSAVerify, ReturnVarOfAnotherTypeThanItsIterArg) {
  SumLoop s;
  s.total = V("total", Fp32T());
  auto f = MakeFn("f", {}, {}, MakeSeq({s.Init(), s.Loop()}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "ITER_ARG_TYPE_MISMATCH", "f", "ForStmt", At(3),
                   "return var 'total' has type Scalar[FP32] but its iter_arg 'acc' has type Scalar[INDEX]; give both "
                   "the same type");
}

TEST(SSAVerify, IfWithReturnVarsButNoElse) {
  auto c = V("c", BoolT());
  auto r = V("r", IndexT());
  auto branch = IfStmt::Make(c, YieldStmt::Make({Int(1)}, At(3)), nullptr, {r}, At(2));
  auto ds = VerifyFunction(MakeFn("f", {c}, {}, branch));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "MISSING_YIELD", "f", "IfStmt", At(2),
                   "the IfStmt at test.py:2:5 defines 1 return var(s) (r) but has no else branch; both branches must "
                   "end with a yield of one value per return var");
}

TEST(SSAVerify, IfBranchWithoutItsYield) {
  auto c = V("c", BoolT());
  auto r = V("r", IndexT());
  auto t = V("t", IndexT());
  auto branch = IfStmt::Make(c, YieldStmt::Make({Int(1)}, At(3)), AssignStmt::Make(t, Int(2), At(5)), {r}, At(2));
  auto ds = VerifyFunction(MakeFn("f", {c}, {}, branch));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "MISSING_YIELD", "f", "IfStmt", At(2),
                   "the else branch of the IfStmt at test.py:2:5 does not end with a yield, but the IfStmt at "
                   "test.py:2:5 has 1 return var(s) (r); end it with pl.yield_(...) giving one value per return var");
}

TEST(SSAVerify, YieldInTheMiddleOfALoopBody) {
  SumLoop s;
  auto body = MakeSeq({YieldStmt::Make({s.acc}, At(4)), s.Step(), YieldStmt::Make({s.nxt}, At(5))});
  auto f = MakeFn("f", {}, {}, MakeSeq({s.Init(), s.Loop(body, {s.total})}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "MISPLACED_YIELD", "f", "YieldStmt", At(4),
                   "a yield may only be the last statement of a loop body or an if branch, where it gives the values "
                   "of the iter_args or return_vars; move it to the end of the enclosing loop body or if branch, or "
                   "remove it");
}

TEST(SSAVerify, YieldInsideAScopeOrAtFunctionLevel) {
  auto i = V("i", IndexT());
  auto scope = ScopeStmt::Make(ScopeKind::InCore, YieldStmt::Make({}, At(4)), "", At(3));
  auto loop = ForStmt::Make(i, Int(0), Int(4), Int(1), {}, scope, {}, ForKind::Sequential, {}, At(2));
  auto f = MakeFn("f", {}, {}, MakeSeq({loop, YieldStmt::Make({}, At(5))}));
  auto ds = VerifyFunction(f);
  ASSERT_EQ(ds.size(), 2u) << Dump(ds);
  EXPECT_EQ(ds[0].code, "MISPLACED_YIELD");
  EXPECT_EQ(ds[0].span, At(4));
  EXPECT_EQ(ds[1].code, "MISPLACED_YIELD");
  EXPECT_EQ(ds[1].span, At(5));
}

TEST(SSAVerify, YieldOfValuesFromALoopWithoutIterArgs) {
  auto i = V("i", IndexT());
  auto t = V("t", IndexT());
  auto body = MakeSeq({AssignStmt::Make(t, i, At(3)), YieldStmt::Make({t}, At(4))});
  auto loop = ForStmt::Make(i, Int(0), Int(4), Int(1), {}, body, {}, ForKind::Sequential, {}, At(2));
  auto ds = VerifyFunction(MakeFn("f", {}, {}, loop));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "SSAVerify", "YIELD_COUNT_MISMATCH", "f", "YieldStmt", At(4),
                   "the yield ending the body of the ForStmt at test.py:2:5 gives 1 value(s) but the ForStmt at "
                   "test.py:2:5 has no iter_args to receive them; remove the values, or add iter_args for them");
}

TEST(SSAVerify, OffForIRBeforeSSAConversion) {
  auto x = V("x", IndexT());
  auto f = MakeFn("f", {}, {},
                  MakeSeq({AssignStmt::Make(x, Int(1), At(2)), AssignStmt::Make(x, Int(2), At(3))}));
  VerifyOptions options;
  options.ssa = false;
  EXPECT_TRUE(VerifyFunction(f, options).empty());
}

}  // namespace
}  // namespace pypto::ir::verifier_test
