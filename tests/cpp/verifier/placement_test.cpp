// OpPlacement: InCore-only and orchestration-only ops.
#include "pypto/ops/registry.h"
#include "verifier_test_util.h"

namespace pypto::ir::verifier_test {
namespace {

const ops::OpRegistry& Registry() { return ops::OpRegistry::Global(); }

// x = test_verifier.add(a, a) at line `line`, the call at column 9.
StmtPtr AddAssign(const VarPtr& x, const VarPtr& a, int line) {
  return AssignStmt::Make(x, Registry().Create(kAddOp, {a, a}, {}, At(line, 9)), At(line));
}

// x = test_verifier.create(size=64) at line `line`, the call at column 9.
StmtPtr CreateAssign(const VarPtr& x, int line) {
  return AssignStmt::Make(x, Registry().Create(kCreateOp, {}, Attrs{{"size", int64_t{64}}}, At(line, 9)), At(line));
}

TEST(OpPlacement, InCoreOnlyOpInOrchestrationCode) {
  auto a = V("a", TensorT({64}));
  auto x = V("x", TensorT({64}));
  auto ds = VerifyFunction(MakeFn("main", {a}, {}, AddAssign(x, a, 2), FunctionType::Orchestration));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "OpPlacement", "INCORE_ONLY_OP", "main", "Call", At(2, 9),
                   "op 'test_verifier.add' may only be called in InCore code, but this call is in Orchestration "
                   "function 'main' outside any InCore scope; move it into a `with pl.at(level=pl.Level.CORE_GROUP):` "
                   "block, or into an InCore function");
}

TEST(OpPlacement, InCoreOnlyOpInAClusterScopeIsStillOutsideInCoreCode) {
  auto a = V("a", TensorT({64}));
  auto x = V("x", TensorT({64}));
  auto scope = ScopeStmt::Make(ScopeKind::Cluster, AddAssign(x, a, 3), "", At(2));
  auto ds = VerifyFunction(MakeFn("main", {a}, {}, scope, FunctionType::Opaque));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "OpPlacement", "INCORE_ONLY_OP", "main", "Call", At(3, 9),
                   "op 'test_verifier.add' may only be called in InCore code, but this call is in Opaque function "
                   "'main' outside any InCore scope; move it into a `with pl.at(level=pl.Level.CORE_GROUP):` block, "
                   "or into an InCore function");
}

TEST(OpPlacement, InCoreOnlyOpsInInCoreScopesAndFunctions) {
  auto a = V("a", TensorT({64}));
  auto x = V("x", TensorT({64}));
  auto scoped = ScopeStmt::Make(ScopeKind::InCore, AddAssign(x, a, 3), "", At(2));
  EXPECT_TRUE(VerifyFunction(MakeFn("main", {a}, {}, scoped, FunctionType::Orchestration)).empty());
  for (FunctionType type : {FunctionType::InCore, FunctionType::AIC, FunctionType::AIV, FunctionType::Group,
                            FunctionType::Inline}) {
    auto ds = VerifyFunction(MakeFn("k", {a}, {}, AddAssign(x, a, 2), type));
    EXPECT_TRUE(ds.empty()) << ToString(type) << "\n" << Dump(ds);
  }
}

TEST(OpPlacement, OrchestrationOnlyOpInsideAnInCoreScope) {
  auto x = V("x", TensorT({64}));
  auto scope = ScopeStmt::Make(ScopeKind::InCore, CreateAssign(x, 3), "", At(2));
  auto ds = VerifyFunction(MakeFn("main", {}, {}, scope, FunctionType::Orchestration));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "OpPlacement", "ORCHESTRATION_ONLY_OP", "main", "Call", At(3, 9),
                   "op 'test_verifier.create' must not be called in InCore code, but this call is inside the InCore "
                   "scope at test.py:2:5 of function 'main'; move it out of the "
                   "`with pl.at(level=pl.Level.CORE_GROUP):` block into orchestration code");
}

TEST(OpPlacement, OrchestrationOnlyOpInAnInCoreFunction) {
  auto x = V("x", TensorT({64}));
  auto ds = VerifyFunction(MakeFn("k", {}, {}, CreateAssign(x, 2), FunctionType::AIC));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "OpPlacement", "ORCHESTRATION_ONLY_OP", "k", "Call", At(2, 9),
                   "op 'test_verifier.create' must not be called in InCore code, but this call is in AIC function "
                   "'k'; call it in orchestration code and pass its result in as an argument");
}

TEST(OpPlacement, OpsAllowedAnywhere) {
  auto n = V("n", IndexT());
  auto m = V("m", IndexT());
  auto call = Registry().Create(kScalarAddOp, {n, n});
  for (FunctionType type : {FunctionType::Orchestration, FunctionType::AIV}) {
    auto ds = VerifyFunction(MakeFn("f", {n}, {}, AssignStmt::Make(m, call, At(2)), type));
    EXPECT_TRUE(ds.empty()) << ToString(type) << "\n" << Dump(ds);
  }
}

TEST(OpPlacement, OffWhenDisabled) {
  auto a = V("a", TensorT({64}));
  auto x = V("x", TensorT({64}));
  VerifyOptions options;
  options.placement = false;
  auto main = MakeFn("main", {a}, {}, AddAssign(x, a, 2), FunctionType::Orchestration);
  EXPECT_TRUE(VerifyFunction(main, options).empty());
}

}  // namespace
}  // namespace pypto::ir::verifier_test
