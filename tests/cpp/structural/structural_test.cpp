#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "pypto/ir/structural.h"
#include "pypto/support/error.h"
#include "structural/sample_ir.h"

using namespace pypto::ir;
using namespace pypto::ir::sample;

namespace {

// Equal, and the hash agrees, both with and without free-variable mapping.
void ExpectEqual(const NodePtr& a, const NodePtr& b, bool map_free_vars = false) {
  EXPECT_TRUE(StructuralEqual(a, b, map_free_vars)) << StructuralDiff(a, b, map_free_vars).value_or("");
  EXPECT_EQ(StructuralDiff(a, b, map_free_vars), std::nullopt);
  EXPECT_EQ(StructuralHash(a, map_free_vars), StructuralHash(b, map_free_vars));
}

// Not equal, with exactly this first difference; the hashes differ too.
void ExpectDiff(const NodePtr& a, const NodePtr& b, const std::string& difference, bool map_free_vars = false) {
  EXPECT_FALSE(StructuralEqual(a, b, map_free_vars));
  EXPECT_EQ(StructuralDiff(a, b, map_free_vars), difference);
  EXPECT_NE(StructuralHash(a, map_free_vars), StructuralHash(b, map_free_vars));
}

VarPtr IndexVar(const std::string& name) { return Var::Make(name, Index()); }

ExprPtr Plus(const ExprPtr& a, const ExprPtr& b) { return BinaryExpr::Make(BinaryOp::Add, a, b); }

// def f(x): y = x + 1; return y — with the names given.
FunctionPtr IncrementFunction(const std::string& x_name, const std::string& y_name) {
  auto x = IndexVar(x_name);
  auto y = IndexVar(y_name);
  auto body = MakeSeq({AssignStmt::Make(y, Plus(x, Int(1))), ReturnStmt::Make({y})});
  return Function::Make("f", FunctionType::Opaque, {x}, {}, {Index()}, body);
}

CallPtr CallWith(Attrs kwargs) {
  return Call::Make(Op::Get("tile.add"), {Int(1)}, std::move(kwargs), UnknownType::Make());
}

// for i in pl.range(0, 10, 1, init_values=(init,)): r = pl.yield_(acc)
StmtPtr LoopWithInit(const ExprPtr& init) {
  auto i = IndexVar("i");
  auto acc = IterArg::Make("acc", Index(), init);
  auto r = IndexVar("r");
  return ForStmt::Make(i, Int(0), Int(10), Int(1), {acc}, YieldStmt::Make({acc}), {r});
}

// with pl.at(level=CORE_GROUP) as <first>: ...
// with pl.at(level=CORE_GROUP, deps=[<first>]) as <second>: ...   (no `as` when second is empty)
StmtPtr ChainedScopes(const std::string& first, const std::string& second) {
  auto task_id = ScalarType::Make(DataType::TASK_ID);
  auto producer = std::make_shared<ScopeStmt>(*ScopeStmt::Make(ScopeKind::InCore, EvalStmt::Make(Int(1))));
  producer->task_id = Var::Make(first, task_id);
  auto consumer = std::make_shared<ScopeStmt>(*ScopeStmt::Make(ScopeKind::InCore, EvalStmt::Make(Int(2))));
  consumer->attrs = {{"deps", std::vector<ExprPtr>{producer->task_id}}};
  if (!second.empty()) consumer->task_id = Var::Make(second, task_id);
  return MakeSeq({producer, consumer});
}

Ref<TileType> TileWithMemRef(int64_t size) {
  auto base = Var::Make("base", PtrType::Make(MemorySpace::Vec));
  auto memref = MemRef::Make("mem", MemorySpace::Vec, base, Int(0), size);
  auto tile =
      std::make_shared<TileType>(*TileType::Make(std::vector<int64_t>{16, 16}, DataType::FP16, MemorySpace::Vec));
  tile->memref = memref;
  return tile;
}

}  // namespace

// ------------------------------------------------------------ identical trees

TEST(StructuralEqual, IndependentlyBuiltFunctionsAreEqualWithTheSameHash) {
  ExpectEqual(SumFunction(), SumFunction());
  ExpectEqual(TileAddFunction(), TileAddFunction());
}

TEST(StructuralEqual, IndependentlyBuiltProgramsAreEqual) { ExpectEqual(TwoFunctionProgram(), TwoFunctionProgram()); }

TEST(StructuralEqual, SamePointerIsEqualEvenWithFreeVariables) {
  auto x = IndexVar("x");
  auto expr = Plus(x, Int(1));
  EXPECT_TRUE(StructuralEqual(expr, expr));
  EXPECT_TRUE(StructuralEqual(x, x));
}

TEST(StructuralEqual, NullOnlyEqualsNull) {
  EXPECT_TRUE(StructuralEqual(nullptr, nullptr));
  EXPECT_FALSE(StructuralEqual(Int(1), nullptr));
  EXPECT_EQ(StructuralDiff(nullptr, Int(1)), "<root>: null vs ConstInt 1");
  EXPECT_EQ(StructuralHash(nullptr), StructuralHash(nullptr));
}

TEST(StructuralEqual, HashIsStableAcrossCalls) {
  uint64_t first = StructuralHash(SumFunction());
  EXPECT_EQ(StructuralHash(SumFunction()), first);
  EXPECT_NE(StructuralHash(TileAddFunction()), first);
}

// ------------------------------------------------------------ differences

TEST(StructuralEqual, DifferentConstantsAreNotEqual) {
  ExpectDiff(Int(1), Int(2), "value: 1 vs 2");
  ExpectDiff(SumFunction("sum", 0), SumFunction("sum", 1), "body.stmts[0].value.value: 0 vs 1");
  ExpectDiff(Bool(true), Bool(false), "value: True vs False");
  ExpectDiff(Float(1.5), Float(2.5), "value: 1.5 vs 2.5");
}

TEST(StructuralEqual, ConstantDtypesAreCompared) {
  ExpectDiff(Int(1, DataType::INT32), Int(1, DataType::INT64), "type.dtype: INT32 vs INT64");
  ExpectDiff(Int(1), Int(1, DataType::INT64), "type.dtype: INDEX vs INT64");
}

TEST(StructuralEqual, FloatsCompareByBitPattern) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  ExpectEqual(Float(nan), Float(nan));
  ExpectDiff(Float(0.0), Float(-0.0), "value: 0 vs -0");
}

TEST(StructuralEqual, DifferentOperatorsAreNotEqual) {
  auto x = IndexVar("x");
  ExpectDiff(Plus(x, Int(1)), BinaryExpr::Make(BinaryOp::Sub, x, Int(1)), "op: Add vs Sub");
  ExpectDiff(UnaryExpr::Make(UnaryOp::Neg, x), UnaryExpr::Make(UnaryOp::Abs, x), "op: Neg vs Abs");
  ExpectDiff(UnaryExpr::MakeCast(x, DataType::FP32), UnaryExpr::MakeCast(x, DataType::FP16),
             "type.dtype: FP32 vs FP16");
}

TEST(StructuralEqual, CallsCompareOpsByName) {
  ExpectDiff(TileAddFunction("tile.add"), TileAddFunction("tile.sub"),
             "body.stmts[0].value.op.name: 'tile.add' vs 'tile.sub'");
  auto op_call = Call::Make(Op::Get("f"), {}, {}, nullptr);
  auto function_call = Call::Make(GlobalVar::Make("f"), {}, {}, nullptr);
  ExpectDiff(op_call, function_call, "op: Op f vs GlobalVar f");
  ExpectEqual(function_call, Call::Make(GlobalVar::Make("f"), {}, {}, nullptr));
}

TEST(StructuralEqual, DtypesAndShapesOfTypesAreCompared) {
  ExpectDiff(TileAddFunction("tile.add", DataType::FP32), TileAddFunction("tile.add", DataType::FP16),
             "params[0].type.dtype: FP32 vs FP16");
  ExpectDiff(TileAddFunction("tile.add", DataType::FP32, 64), TileAddFunction("tile.add", DataType::FP32, 32),
             "params[0].type.shape[0].value: 64 vs 32");
  ExpectDiff(TensorType::Make(std::vector<int64_t>{4, 4}, DataType::FP32),
             TensorType::Make(std::vector<int64_t>{4}, DataType::FP32), "shape: 2 elements vs 1 element");
}

TEST(StructuralEqual, TypesAreNodes) {
  ExpectEqual(ScalarType::Make(DataType::FP32), ScalarType::Make(DataType::FP32));
  ExpectEqual(TupleType::Make({Index(), Index()}), TupleType::Make({Index(), Index()}));
  ExpectDiff(ArrayType::Make(DataType::TASK_ID, Int(4)), ArrayType::Make(DataType::TASK_ID, Int(8)),
             "size.value: 4 vs 8");
  ExpectDiff(PtrType::Make(MemorySpace::Vec), PtrType::Make(), "memory_space: Vec vs unset");
  ExpectDiff(Index(), PtrType::Make(), "<root>: Scalar[INDEX] vs Ptr");
  ExpectEqual(UnknownType::Make(), std::make_shared<UnknownType>());
}

TEST(StructuralEqual, TensorViewsAreCompared) {
  TensorView view{Ints({64, 1}), {}, PadValue::Null};
  auto with_view = TensorType::Make(Ints({4, 64}), DataType::FP32, TensorLayout::ND, view);
  ExpectEqual(with_view, TensorType::Make(Ints({4, 64}), DataType::FP32, TensorLayout::ND, view));
  ExpectDiff(with_view, TensorType::Make(Ints({4, 64}), DataType::FP32), "view: set vs unset");
  TensorView padded = view;
  padded.pad = PadValue::Zero;
  ExpectDiff(with_view, TensorType::Make(Ints({4, 64}), DataType::FP32, TensorLayout::ND, padded),
             "view.pad: null vs zero");
  TensorView strided{Ints({128, 1}), {}, PadValue::Null};
  ExpectDiff(with_view, TensorType::Make(Ints({4, 64}), DataType::FP32, TensorLayout::ND, strided),
             "view.strides[0].value: 64 vs 128");
}

TEST(StructuralEqual, TileMemRefsAreFreeVariables) {
  ExpectDiff(TileWithMemRef(512), TileWithMemRef(512),
             "memref: MemRef 'mem' vs MemRef 'mem' (different free variables; pass map_free_vars=true to map them "
             "onto each other)");
  ExpectEqual(TileWithMemRef(512), TileWithMemRef(512), /*map_free_vars=*/true);
  ExpectDiff(TileWithMemRef(512), TileWithMemRef(1024), "memref.size: 512 vs 1024", /*map_free_vars=*/true);
}

TEST(StructuralEqual, ForKindsAreCompared) {
  ExpectDiff(SumFunction("sum", 0, ForKind::Sequential), SumFunction("sum", 0, ForKind::Parallel),
             "body.stmts[1].for_kind: Sequential vs Parallel");
}

TEST(StructuralEqual, FunctionNamesAreCompared) {
  ExpectDiff(SumFunction("a"), SumFunction("b"), "name: 'a' vs 'b'");
}

TEST(StructuralEqual, StatementKindsAndMissingBranchesDiffer) {
  auto cond = Bool(true);
  auto with_else = IfStmt::Make(cond, ReturnStmt::Make({}), BreakStmt::Make());
  auto without_else = IfStmt::Make(cond, ReturnStmt::Make({}), nullptr);
  ExpectDiff(with_else, without_else, "else_body: BreakStmt vs null");
  ExpectDiff(BreakStmt::Make(), ContinueStmt::Make(), "<root>: BreakStmt vs ContinueStmt");
}

// ------------------------------------------------------------ variables

TEST(StructuralEqual, ScopeTaskIdsMapLikeOtherDefinitions) {
  ExpectEqual(ChainedScopes("t0", "t1"), ChainedScopes("a", "b"));
  ExpectDiff(ChainedScopes("t0", "t1"), ChainedScopes("t0", ""), "stmts[1].task_id: Var 't1' vs null");
}

// t = pl.submit(self.k, 1, deps=[<deps>...]); the task ids are free variables.
ExprPtr SubmitOfK(const std::vector<ExprPtr>& deps, bool early) {
  auto call = Call::Make(GlobalVar::Make("k"), {Int(1)}, {}, Index());
  return Submit::Make(call, deps, {{"allow_early_resolve", early}});
}

TEST(StructuralEqual, SubmitsCompareCallDepsAndAttrs) {
  auto task_id = ScalarType::Make(DataType::TASK_ID);
  auto t0 = Var::Make("t0", task_id);
  auto t1 = Var::Make("t1", task_id);
  ExpectEqual(SubmitOfK({t0}, false), SubmitOfK({t0}, false));
  ExpectEqual(SubmitOfK({t0}, false), SubmitOfK({t1}, false), /*map_free_vars=*/true);
  EXPECT_FALSE(StructuralEqual(SubmitOfK({t0}, false), SubmitOfK({t1}, false)));
  EXPECT_FALSE(StructuralEqual(SubmitOfK({t0}, false), SubmitOfK({}, false), true));
  EXPECT_FALSE(StructuralEqual(SubmitOfK({t0}, false), SubmitOfK({t0}, true)));
  EXPECT_FALSE(StructuralEqual(SubmitOfK({}, false), Call::Make(GlobalVar::Make("k"), {Int(1)}, {}, Index())));
}

TEST(StructuralEqual, DefinitionsMapAutomatically) {
  auto x = IndexVar("x");
  auto a = IndexVar("a");
  ExpectEqual(MakeSeq({AssignStmt::Make(x, Int(1)), EvalStmt::Make(x)}),
              MakeSeq({AssignStmt::Make(a, Int(1)), EvalStmt::Make(a)}));
}

TEST(StructuralEqual, DefinitionsNeedEqualTypes) {
  auto x = Var::Make("x", ScalarType::Make(DataType::INT32));
  auto a = Var::Make("a", ScalarType::Make(DataType::FP32));
  ExpectDiff(AssignStmt::Make(x, Int(1)), AssignStmt::Make(a, Int(1)), "var.type.dtype: INT32 vs FP32");
}

TEST(StructuralEqual, DefinitionsNeedEqualVariableKinds) {
  auto x = IndexVar("x");
  auto it = IterArg::Make("x", Index(), Int(0));
  ExpectDiff(AssignStmt::Make(x, Int(1)), AssignStmt::Make(it, Int(1)), "var: Var 'x' vs IterArg 'x'");
}

TEST(StructuralEqual, ParamsMapInOrder) {
  auto make = [](bool return_first) {
    auto x = IndexVar("x");
    auto y = IndexVar("y");
    return Function::Make("f", FunctionType::Opaque, {x, y}, {}, {Index()},
                          ReturnStmt::Make({return_first ? x : y}));
  };
  ExpectEqual(make(true), make(true));
  ExpectDiff(make(true), make(false),
             "body.values[0]: Var 'x' vs Var 'y' ('x' on the left already corresponds to 'x')");
}

TEST(StructuralEqual, FreeVariablesCompareByIdentityUnlessMapped) {
  auto x = IndexVar("x");
  auto y = IndexVar("y");
  ExpectEqual(Plus(x, Int(1)), Plus(x, Int(1)));
  ExpectDiff(Plus(x, Int(1)), Plus(y, Int(1)),
             "lhs: Var 'x' vs Var 'y' (different free variables; pass map_free_vars=true to map them onto each other)");
  ExpectEqual(Plus(x, Int(1)), Plus(y, Int(1)), /*map_free_vars=*/true);
}

TEST(StructuralEqual, MappedFreeVariablesNeedEqualTypes) {
  auto x = Var::Make("x", ScalarType::Make(DataType::INT32));
  auto y = Var::Make("y", ScalarType::Make(DataType::INT64));
  ExpectDiff(EvalStmt::Make(x), EvalStmt::Make(y), "expr.type.dtype: INT32 vs INT64", /*map_free_vars=*/true);
}

TEST(StructuralEqual, InconsistentMappingIsNotEqual) {
  auto x = IndexVar("x");
  auto y = IndexVar("y");
  auto a = IndexVar("a");
  auto b = IndexVar("b");
  ExpectDiff(Plus(x, x), Plus(a, b), "rhs: Var 'x' vs Var 'b' ('x' on the left already corresponds to 'a')", true);
  ExpectDiff(Plus(x, y), Plus(a, a), "rhs: Var 'y' vs Var 'a' ('a' on the right already corresponds to 'x')", true);
  ExpectEqual(Plus(x, y), Plus(a, b), true);
}

TEST(StructuralEqual, RedefinitionMustKeepTheMapping) {
  auto x = IndexVar("x");
  auto a = IndexVar("a");
  auto b = IndexVar("b");
  ExpectDiff(MakeSeq({AssignStmt::Make(x, Int(1)), AssignStmt::Make(x, Int(2))}),
             MakeSeq({AssignStmt::Make(a, Int(1)), AssignStmt::Make(b, Int(2))}),
             "stmts[1].var: Var 'x' vs Var 'b' ('x' on the left already corresponds to 'a')");
  ExpectEqual(MakeSeq({AssignStmt::Make(x, Int(1)), AssignStmt::Make(x, Int(2))}),
              MakeSeq({AssignStmt::Make(a, Int(1)), AssignStmt::Make(a, Int(2))}));
}

TEST(StructuralEqual, UseBeforeDefinitionIsFree) {
  auto make = [](const VarPtr& v) { return MakeSeq({EvalStmt::Make(Plus(v, Int(1))), AssignStmt::Make(v, Int(2))}); };
  auto x = IndexVar("x");
  auto a = IndexVar("a");
  ExpectDiff(make(x), make(a),
             "stmts[0].expr.lhs: Var 'x' vs Var 'a' (different free variables; pass map_free_vars=true to map them "
             "onto each other)");
  ExpectEqual(make(x), make(a), /*map_free_vars=*/true);
}

TEST(StructuralEqual, SharedSubtreeFollowsTheMapping) {
  auto x = IndexVar("x");
  auto y = IndexVar("y");
  auto shared = EvalStmt::Make(Plus(x, Int(1)));
  ExpectDiff(MakeSeq({AssignStmt::Make(x, Int(1)), shared}), MakeSeq({AssignStmt::Make(y, Int(1)), shared}),
             "stmts[1].expr.lhs: Var 'x' vs Var 'x' ('x' on the left already corresponds to 'y')");
}

TEST(StructuralEqual, IterArgInitValuesAreCompared) {
  ExpectEqual(LoopWithInit(Int(0)), LoopWithInit(Int(0)));
  ExpectDiff(LoopWithInit(Int(0)), LoopWithInit(Int(1)), "iter_args[0].init_value.value: 0 vs 1");
}

TEST(StructuralEqual, WhileAndIfReturnVarsMap) {
  auto make = [] {
    auto n = IndexVar("n");
    auto it = IterArg::Make("k", Index(), Int(0));
    auto r = IndexVar("r");
    auto phi = IndexVar("phi");
    auto loop = WhileStmt::Make(BinaryExpr::Make(BinaryOp::Lt, it, n), {it}, YieldStmt::Make({Plus(it, Int(1))}), {r});
    auto branch = IfStmt::Make(BinaryExpr::Make(BinaryOp::Gt, r, Int(3)), YieldStmt::Make({r}),
                               YieldStmt::Make({Int(0)}), {phi});
    return Function::Make("w", FunctionType::Opaque, {n}, {}, {Index()},
                          MakeSeq({loop, branch, ReturnStmt::Make({phi})}));
  };
  ExpectEqual(make(), make());
}

// ------------------------------------------------------------ ignored fields

TEST(StructuralEqual, NamesSpansAndCommentsAreIgnored) {
  auto plain = IncrementFunction("x", "y");
  auto renamed = IncrementFunction("input", "output");
  ExpectEqual(plain, renamed);

  auto body = Flatten(renamed->body);
  auto commented = std::make_shared<AssignStmt>(*As<AssignStmt>(body[0]));
  commented->leading_comments = {"# the increment"};
  commented->span = pypto::Span("kernel.py", 12, 5, 12, 20);
  auto function = std::make_shared<Function>(*renamed);
  function->body = MakeSeq({commented, body[1]});
  function->span = pypto::Span("kernel.py", 10, 1);
  ExpectEqual(plain, function);
}

// ------------------------------------------------------------ attributes

TEST(StructuralEqual, AttrValuesCompareByKindAndValue) {
  ExpectDiff(CallWith({{"mode", std::string("fast")}}), CallWith({{"mode", std::string("slow")}}),
             "kwargs[\"mode\"]: 'fast' vs 'slow'");
  ExpectDiff(CallWith({{"k", int64_t{1}}}), CallWith({{"k", 1.0}}), "kwargs[\"k\"]: int 1 vs float 1");
  ExpectDiff(CallWith({{"a", true}}), CallWith({{"b", true}}), "kwargs[0]: key 'a' vs key 'b'");
  ExpectDiff(CallWith({{"a", true}}), CallWith({{"a", true}, {"b", true}}), "kwargs: 1 entry vs 2 entries");
  ExpectDiff(CallWith({{"t", DataType::FP16}}), CallWith({{"t", DataType::BF16}}), "kwargs[\"t\"]: FP16 vs BF16");
  ExpectDiff(CallWith({{"m", EnumAttr::Of(MemorySpace::Vec)}}), CallWith({{"m", EnumAttr::Of(MemorySpace::Mat)}}),
             "kwargs[\"m\"]: MemorySpace.Vec vs MemorySpace.Mat");
  ExpectDiff(CallWith({{"l", std::vector<int64_t>{1, 2}}}), CallWith({{"l", std::vector<int64_t>{1, 3}}}),
             "kwargs[\"l\"][1]: 2 vs 3");
}

TEST(StructuralEqual, AttrsOfEveryKindEqualWhenRebuilt) {
  auto make = [] {
    Attrs attrs{{"b", true},
                {"i", int64_t{-3}},
                {"f", std::numeric_limits<double>::quiet_NaN()},
                {"s", std::string("x")},
                {"d", DataType::INT8},
                {"e", EnumAttr::Of(ForKind::Unroll)},
                {"x", ExprPtr(Int(3))},
                {"li", std::vector<int64_t>{1, 2}},
                {"ls", std::vector<std::string>{"p", "q"}},
                {"le", std::vector<ExprPtr>{Int(1), Bool(false)}}};
    return Call::Make(Op::Get("tile.add"), {}, {}, nullptr, pypto::Span(), attrs);
  };
  ExpectEqual(make(), make());
}

TEST(StructuralEqual, ExprAttrValuesCompareStructurally) {
  ExpectDiff(CallWith({{"x", ExprPtr(Int(3))}}), CallWith({{"x", ExprPtr(Int(4))}}), "kwargs[\"x\"].value: 3 vs 4");
}

// ------------------------------------------------------------ programs and reports

TEST(StructuralEqual, ProgramsCompareFunctionsInOrder) {
  ExpectDiff(TwoFunctionProgram(0), TwoFunctionProgram(1), "functions[1].body.stmts[0].value.value: 0 vs 1");
  ExpectDiff(TwoFunctionProgram(), Program::Make("prog", {SumFunction()}), "functions: 2 elements vs 1 element");
}

TEST(StructuralEqual, AssertStructuralEqualThrowsTheDifference) {
  EXPECT_NO_THROW(AssertStructuralEqual(SumFunction(), SumFunction()));
  try {
    AssertStructuralEqual(SumFunction("sum", 0), SumFunction("sum", 7));
    FAIL() << "expected an error";
  } catch (const pypto::Error& e) {
    EXPECT_EQ(e.kind(), pypto::ErrorKind::kValue);
    EXPECT_EQ(e.message(), "AssertStructuralEqual: the IR differs at body.stmts[0].value.value: 0 vs 7");
  }
}
