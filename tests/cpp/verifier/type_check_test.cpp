// TypeCheck: op calls, calls of program functions, returns, conditions,
// loop bounds and assignments.
#include "pypto/ops/registry.h"
#include "verifier_test_util.h"

namespace pypto::ir::verifier_test {
namespace {

const ops::OpRegistry& Registry() { return ops::OpRegistry::Global(); }

// An InCore function `name(params) -> returns` whose body is `x = value; return x` (lines 2, 3).
FunctionPtr AssignAndReturn(const std::string& name, std::vector<VarPtr> params, const VarPtr& x, ExprPtr value) {
  auto body = MakeSeq({AssignStmt::Make(x, std::move(value), At(2)), ReturnStmt::Make({x}, At(3))});
  return MakeFn(name, std::move(params), {x->type}, body, FunctionType::InCore);
}

TEST(TypeCheck, OpCallWithAStaleRecordedType) {
  auto a = V("a", TensorT({64}));
  auto b = V("b", TensorT({64}));
  auto x = V("x", TensorT({32}));
  auto call = Call::Make(Op::Get(kAddOp), {a, b}, {}, TensorT({32}), At(2, 9));
  auto ds = VerifyFunction(AssignAndReturn("k", {a, b}, x, call));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "CALL_TYPE_MISMATCH", "k", "Call", At(2, 9),
                   "the call of 'test_verifier.add' records type Tensor[[32], FP32] but its arguments deduce "
                   "Tensor[[64], FP32]; a pass changed the call without updating its type: rebuild it with "
                   "OpRegistry::Create");
}

TEST(TypeCheck, OpCallWhoseArgumentsNoLongerDeduce) {
  auto a = V("a", TensorT({64}));
  auto b = V("b", TensorT({32}));
  auto x = V("x", TensorT({64}));
  auto ds = VerifyFunction(AssignAndReturn("k", {a, b}, x, Call::Make(Op::Get(kAddOp), {a, b}, {}, TensorT({64}))));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "DEDUCTION_FAILED", "k", "Call", At(2),
                   "the call of 'test_verifier.add' does not type-check: test_verifier.add: operands "
                   "Tensor[[64], FP32] and Tensor[[32], FP32] differ; fix its arguments, or rebuild it with "
                   "OpRegistry::Create");
}

TEST(TypeCheck, OpCallWithTheWrongNumberOfArguments) {
  auto a = V("a", TensorT({64}));
  auto x = V("x", TensorT({64}));
  auto ds = VerifyFunction(AssignAndReturn("k", {a}, x, Call::Make(Op::Get(kAddOp), {a}, {}, TensorT({64}), At(2, 9))));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "DEDUCTION_FAILED", "k", "Call", At(2, 9),
                   "the call of 'test_verifier.add' does not type-check: test_verifier.add takes 2 positional "
                   "argument(s) but 1 were given; signature: test_verifier.add(lhs, rhs); fix its arguments, or "
                   "rebuild it with OpRegistry::Create");
}

TEST(TypeCheck, CallOfAnUnregisteredOp) {
  auto call = Call::Make(Op::Get("test_verifier.no_such_op"), {}, {}, nullptr, At(2, 5));
  auto ds = VerifyFunction(MakeFn("f", {}, {}, EvalStmt::Make(call, At(2))));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "UNKNOWN_OP", "f", "Call", At(2, 5),
                   "op 'test_verifier.no_such_op' is not registered; check its spelling, or load the plugin that "
                   "defines it");
}

TEST(TypeCheck, RecordedTypeMayRefineWhatDeductionLeavesOpen) {
  auto tile_type = TileType::Make({16, 16}, DataType::FP32, MemorySpace::Vec);
  auto t = V("t", tile_type);
  auto with_memref = std::make_shared<TileType>(*tile_type);
  with_memref->memref = MemRef::Make("mem", MemorySpace::Vec, nullptr, Int(0), 1024);
  auto x = V("x", with_memref);
  auto deduced = Registry().Create(kTileNegOp, {t});
  ASSERT_FALSE(As<TileType>(deduced->type)->memory_space.has_value());
  auto ds = VerifyFunction(AssignAndReturn("k", {t}, x, Call::Make(deduced->op, {t}, {}, with_memref, At(2, 9))));
  EXPECT_TRUE(ds.empty()) << Dump(ds);
}

TEST(TypeCheck, OffWhenDisabled) {
  auto call = Call::Make(Op::Get("test_verifier.no_such_op"), {}, {}, nullptr, At(2, 5));
  VerifyOptions options;
  options.type_check = false;
  EXPECT_TRUE(VerifyFunction(MakeFn("f", {}, {}, EvalStmt::Make(call, At(2))), options).empty());
}

// ---------------------------------------------------------------- calls of program functions

// g(x: Tensor[[64], FP32]) -> Tensor[[64], FP32]
FunctionPtr Identity64() {
  auto x = V("x", TensorT({64}));
  return MakeFn("g", {x}, {x->type}, ReturnStmt::Make({x}, At(10)), FunctionType::InCore);
}

// main(a: Tensor[[64]], b: Tensor[[32]]) that evaluates `call` at line 2.
ProgramPtr MainCalling(const std::vector<VarPtr>& params, const CallPtr& call, std::vector<FunctionPtr> others) {
  others.push_back(MakeFn("main", params, {}, EvalStmt::Make(call, At(2)), FunctionType::Orchestration));
  return Program::Make("p", std::move(others));
}

TEST(TypeCheck, CallOfAFunctionNotInTheProgram) {
  auto call = Call::Make(GlobalVar::Make("missing"), {}, {}, nullptr, At(2, 5));
  auto ds = Verify(MainCalling({}, call, {}));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "UNKNOWN_FUNCTION", "main", "Call", At(2, 5),
                   "calls 'missing', which is not a function of program 'p'; add the function to the program or call "
                   "one that exists");
}

TEST(TypeCheck, VerifyFunctionLeavesCallsOfOtherFunctionsAlone) {
  auto call = Call::Make(GlobalVar::Make("missing"), {}, {}, nullptr, At(2, 5));
  auto ds = VerifyFunction(MakeFn("main", {}, {}, EvalStmt::Make(call, At(2))));
  EXPECT_TRUE(ds.empty()) << Dump(ds);
}

TEST(TypeCheck, CallWithTheWrongNumberOfArguments) {
  auto a = V("a", TensorT({64}));
  auto call = Call::Make(GlobalVar::Make("g"), {a, a}, {}, TensorT({64}), At(2, 5));
  auto ds = Verify(MainCalling({a}, call, {Identity64()}));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "ARG_COUNT_MISMATCH", "main", "Call", At(2, 5),
                   "'g' takes 1 argument(s) (x) but this call passes 2; pass one argument per parameter");
}

TEST(TypeCheck, CallWithAnArgumentOfTheWrongType) {
  auto b = V("b", TensorT({32}));
  auto call = Call::Make(GlobalVar::Make("g"), {b}, {}, TensorT({64}), At(2, 5));
  auto ds = Verify(MainCalling({b}, call, {Identity64()}));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "ARG_TYPE_MISMATCH", "main", "Call", At(2, 5),
                   "argument 0 of the call of 'g' has type Tensor[[32], FP32] but parameter 'x' expects "
                   "Tensor[[64], FP32]; pass a value of the parameter's type");
}

TEST(TypeCheck, CallTypedAsOneValueOfAFunctionReturningTwo) {
  auto x = V("x", TensorT({64}));
  auto n = V("n", IndexT());
  auto pair = MakeFn("g", {x, n}, {x->type, n->type}, ReturnStmt::Make({x, n}, At(10)), FunctionType::InCore);
  auto a = V("a", TensorT({64}));
  auto call = Call::Make(GlobalVar::Make("g"), {a, Int(3)}, {}, TensorT({64}), At(2, 5));
  auto ds = Verify(MainCalling({a}, call, {pair}));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "CALL_TYPE_MISMATCH", "main", "Call", At(2, 5),
                   "the call of 'g' has type Tensor[[64], FP32] but 'g' returns Tuple[Tensor[[64], FP32], "
                   "Scalar[INDEX]]; give the call its callee's return type");
}

TEST(TypeCheck, DynamicDimensionsOfACalleeBindOncePerCall) {
  auto n = V("N", IndexT());
  auto x = V("x", TensorType::Make({n, Int(64)}, DataType::FP32));
  auto y = V("y", TensorType::Make({n, Int(64)}, DataType::FP32));
  auto z = V("z", x->type);
  auto add = AssignAndReturn("g", {x, y}, z, Registry().Create(kAddOp, {x, y}));
  auto a = V("a", TensorT({128, 64}));
  auto b = V("b", TensorT({128, 64}));
  auto c = V("c", TensorT({32, 64}));
  auto matching = Call::Make(GlobalVar::Make("g"), {a, b}, {}, TensorT({128, 64}), At(2, 5));
  auto valid = Verify(MainCalling({a, b, c}, matching, {add}));
  EXPECT_TRUE(valid.empty()) << Dump(valid);

  auto conflicting = Call::Make(GlobalVar::Make("g"), {a, c}, {}, TensorT({128, 64}), At(2, 5));
  auto ds = Verify(MainCalling({a, b, c}, conflicting, {add}));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "ARG_TYPE_MISMATCH", "main", "Call", At(2, 5),
                   "argument 1 of the call of 'g' has type Tensor[[32, 64], FP32] but parameter 'y' expects "
                   "Tensor[[N, 64], FP32]; pass a value of the parameter's type");
}

// ---------------------------------------------------------------- statements

TEST(TypeCheck, ReturnOfTooFewValues) {
  auto ds = VerifyFunction(MakeFn("f", {}, {IndexT()}, ReturnStmt::Make({}, At(2))));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "RETURN_COUNT_MISMATCH", "f", "ReturnStmt", At(2),
                   "returns 0 value(s) but function 'f' declares 1 return type(s) (Scalar[INDEX]); return one value "
                   "per declared type");
}

TEST(TypeCheck, ReturnOfAValueOfAnotherType) {
  auto ds = VerifyFunction(MakeFn("f", {}, {IndexT()}, ReturnStmt::Make({Float(1.0)}, At(2))));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "RETURN_TYPE_MISMATCH", "f", "ReturnStmt", At(2),
                   "return value 0 has type Scalar[FP32] but function 'f' declares Scalar[INDEX]; return a value of "
                   "the declared type, or change the declaration");
}

TEST(TypeCheck, IfConditionThatIsNotBool) {
  auto n = V("n", IndexT());
  auto x = V("x", IndexT());
  auto ds = VerifyFunction(MakeFn("f", {n}, {}, IfStmt::Make(n, AssignStmt::Make(x, n, At(3)), nullptr, {}, At(2))));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "CONDITION_NOT_BOOL", "f", "IfStmt", At(2),
                   "the if condition has type Scalar[INDEX]; a condition must be Scalar[BOOL]: compare explicitly "
                   "(e.g. `x != 0`)");
}

TEST(TypeCheck, WhileConditionThatIsNotBool) {
  auto k0 = V("k0", ScalarType::Make(DataType::INT32));
  auto k = IterArg::Make("k", k0->type, k0);
  auto k1 = V("k1", k0->type);
  auto kf = V("kf", k0->type);
  auto body = MakeSeq({AssignStmt::Make(k1, BinaryExpr::Make(BinaryOp::Sub, k, Int(1, DataType::INT32)), At(4)),
                       YieldStmt::Make({k1}, At(5))});
  auto ds = VerifyFunction(MakeFn("f", {k0}, {}, WhileStmt::Make(k, {k}, body, {kf}, At(3))));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "CONDITION_NOT_BOOL", "f", "WhileStmt", At(3),
                   "the while condition has type Scalar[INT32]; a condition must be Scalar[BOOL]: compare explicitly "
                   "(e.g. `x != 0`)");
}

TEST(TypeCheck, ForBoundThatIsNotAnInteger) {
  auto s = V("s", Fp32T());
  auto i = V("i", IndexT());
  auto t = V("t", IndexT());
  auto loop =
      ForStmt::Make(i, Int(0), s, Int(1), {}, AssignStmt::Make(t, i, At(3)), {}, ForKind::Sequential, {}, At(2));
  auto ds = VerifyFunction(MakeFn("f", {s}, {}, loop));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "LOOP_BOUND_NOT_INT", "f", "ForStmt", At(2),
                   "the for loop's stop bound has type Scalar[FP32]; loop variables and bounds must be integer "
                   "scalars: convert it with pl.cast(..., pl.INDEX)");
}

TEST(TypeCheck, AssignmentToAVariableOfAnotherType) {
  auto a = V("a", TensorT({64}));
  auto x = V("x", TensorT({64}, DataType::FP16));
  auto ds = VerifyFunction(MakeFn("f", {a}, {}, AssignStmt::Make(x, a, At(2))));
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TypeCheck", "ASSIGN_TYPE_MISMATCH", "f", "AssignStmt", At(2),
                   "'x' is declared as Tensor[[64], FP16] but is assigned a value of type Tensor[[64], FP32]; declare "
                   "the variable with the value's type, or convert the value");
}

}  // namespace
}  // namespace pypto::ir::verifier_test
