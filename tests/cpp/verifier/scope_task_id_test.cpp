// A scope's task id (`with pl.at(...) as tid:`): defined after the scope,
// typed TASK_ID, only on scopes that are one task; deps= entries are task ids.
#include "verifier_test_util.h"

namespace pypto::ir::verifier_test {
namespace {

TypePtr TaskIdT() { return ScalarType::Make(DataType::TASK_ID); }

// with pl.<kind>(...) as <task_id>:   (line `line`)
//     <name> = 1                      (line `line` + 1)
std::shared_ptr<ScopeStmt> Scope(ScopeKind kind, int line, const VarPtr& task_id, std::vector<ExprPtr> deps = {},
                                  StmtPtr body = nullptr) {
  if (!body) body = AssignStmt::Make(V("x" + std::to_string(line), IndexT()), Int(1), At(line + 1));
  auto scope = std::make_shared<ScopeStmt>(*ScopeStmt::Make(kind, body, "", At(line)));
  if (kind == ScopeKind::Spmd) scope->core_num = Int(4);
  if (!deps.empty()) scope->attrs = {{"deps", std::move(deps)}};
  scope->task_id = task_id;
  return scope;
}

TEST(ScopeTaskId, LaterScopesWaitOnTaskIdsAndArraysOfThem) {
  auto first = V("first", TaskIdT());
  auto second = V("second", TaskIdT());
  auto tids = V("tids", ArrayType::Make(DataType::TASK_ID, Int(2)));
  auto body = MakeSeq({Scope(ScopeKind::InCore, 2, first), Scope(ScopeKind::Spmd, 4, second, {first, tids}),
                       Scope(ScopeKind::InCore, 6, nullptr, {second})});
  auto f = MakeFn("f", {tids}, {}, body);
  EXPECT_TRUE(VerifyFunction(f).empty()) << Dump(VerifyFunction(f));
}

TEST(ScopeTaskId, TaskIdUsedInsideItsOwnScope) {
  auto tid = V("tid", TaskIdT());
  auto copy = V("copy", TaskIdT());
  auto inner = Scope(ScopeKind::InCore, 2, tid, {}, AssignStmt::Make(copy, tid, At(3)));
  auto ds = VerifyFunction(MakeFn("f", {}, {}, inner));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "UseAfterDef", "TASK_ID_IN_OWN_SCOPE", "f", "AssignStmt", At(3),
                   "'tid' is the task id of the ScopeStmt at test.py:2:5 and is defined only after that scope ends; "
                   "use it in a later statement, e.g. in deps=[tid] of a later scope");
}

TEST(ScopeTaskId, ScopeWaitingOnItsOwnTaskId) {
  auto tid = V("tid", TaskIdT());
  auto ds = VerifyFunction(MakeFn("f", {}, {}, Scope(ScopeKind::Spmd, 2, tid, {tid})));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "UseAfterDef", "TASK_ID_IN_OWN_SCOPE", "f", "ScopeStmt", At(2),
                   "'tid' is the task id of the ScopeStmt at test.py:2:5 and is defined only after that scope ends; "
                   "use it in a later statement, e.g. in deps=[tid] of a later scope");
}

TEST(ScopeTaskId, TaskIdOfAnotherType) {
  auto tid = V("tid", IndexT());
  auto ds = VerifyFunction(MakeFn("f", {}, {}, Scope(ScopeKind::InCore, 2, tid)));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "TASK_ID_TYPE_MISMATCH", "f", "ScopeStmt", At(2),
                   "task id 'tid' has type Scalar[INDEX]; a scope's task id must be Scalar[TASK_ID]");
}

TEST(ScopeTaskId, TaskIdOnAScopeThatIsNotOneTask) {
  auto tid = V("tid", TaskIdT());
  auto ds = VerifyFunction(MakeFn("f", {}, {}, Scope(ScopeKind::Cluster, 2, tid)));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "TASK_ID_ON_NON_TASK_SCOPE", "f", "ScopeStmt", At(2),
                   "the Cluster scope binds task id 'tid', but only an InCore (pl.at at CORE_GROUP) or Spmd scope is "
                   "one task; remove the task id");
}

TEST(ScopeTaskId, DepsEntriesThatAreNotTaskIds) {
  auto n = V("n", IndexT());
  auto flags = V("flags", ArrayType::Make(DataType::INT32, Int(2)));
  auto ds = VerifyFunction(MakeFn("f", {n, flags}, {}, Scope(ScopeKind::InCore, 2, nullptr, {n, flags})));
  ASSERT_EQ(ds.size(), 2u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "DEPS_TYPE_MISMATCH", "f", "ScopeStmt", At(2),
                   "deps entry 0 has type Scalar[INDEX]; deps= takes task ids: Scalar[TASK_ID] values (`as tid`) or "
                   "Arrays of TASK_ID");
  EXPECT_EQ(ds[1].message,
            "deps entry 1 has type Array[2, INT32]; deps= takes task ids: Scalar[TASK_ID] values (`as tid`) or "
            "Arrays of TASK_ID");
}

TEST(ScopeTaskId, DepsThatAreNotAList) {
  auto scope = Scope(ScopeKind::InCore, 2, nullptr);
  scope->attrs = {{"deps", int64_t{3}}};
  auto ds = VerifyFunction(MakeFn("f", {}, {}, scope));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "DEPS_TYPE_MISMATCH", "f", "ScopeStmt", At(2),
                   "deps= must be a list of task ids (Scalar[TASK_ID] values or Arrays of TASK_ID), got int; write "
                   "deps=[tid, ...]");
}

// task = pl.submit(self.k, 1, deps=[<deps>])   (line 2), with the submit's type replaced by `type`.
StmtPtr SubmitAssign(std::vector<ExprPtr> deps, TypePtr type = nullptr) {
  auto call = Call::Make(GlobalVar::Make("k"), {Int(1)}, {}, IndexT(), At(2));
  auto submit = std::make_shared<Submit>(*Submit::Make(call, std::move(deps), {}, At(2)));
  if (type) submit->type = type;
  return AssignStmt::Make(V("task", submit->type), submit, At(2));
}

TEST(SubmitTask, SubmitWaitingOnTaskIdsTypeChecks) {
  auto t = V("t", TaskIdT());
  auto tids = V("tids", ArrayType::Make(DataType::TASK_ID, Int(2)));
  auto f = MakeFn("f", {t, tids}, {}, SubmitAssign({t, tids}));
  EXPECT_TRUE(VerifyFunction(f).empty()) << Dump(VerifyFunction(f));
}

TEST(SubmitTask, SubmitWhoseTypeLacksTheTaskId) {
  auto ds = VerifyFunction(MakeFn("f", {}, {}, SubmitAssign({}, TupleType::Make({IndexT()}))));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "SUBMIT_TYPE_MISMATCH", "f", "Submit", At(2),
                   "the submit of 'k' has type Tuple[Scalar[INDEX]] but its call returns Scalar[INDEX], so it must "
                   "be Tuple[Scalar[INDEX], Scalar[TASK_ID]]; rebuild the submit with Submit::Make after changing "
                   "its call");
}

TEST(SubmitTask, SubmitWaitingOnSomethingElse) {
  auto n = V("n", IndexT());
  auto ds = VerifyFunction(MakeFn("f", {n}, {}, SubmitAssign({n})));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "DEPS_TYPE_MISMATCH", "f", "Submit", At(2),
                   "deps entry 0 has type Scalar[INDEX]; deps= takes task ids: Scalar[TASK_ID] values (`as tid`) or "
                   "Arrays of TASK_ID");
}

}  // namespace
}  // namespace pypto::ir::verifier_test
