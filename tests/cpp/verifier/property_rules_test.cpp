// The property rules: NoNestedCalls, IncoreTileOps, TileMemoryInferred,
// HasMemRefs, AllocatedMemoryAddr; each runs only when its option is on, and
// the verification instrument turns it on while its property holds.
#include "pypto/ops/registry.h"
#include "pypto/pass/context.h"
#include "pypto/pass/instruments.h"
#include "pypto/support/error.h"
#include "verifier_test_util.h"

namespace pypto::ir::verifier_test {
namespace {

CallPtr Op(const std::string& name, std::vector<ExprPtr> args, Attrs kwargs = {}, Span span = Span()) {
  return ops::OpRegistry::Global().Create(name, std::move(args), std::move(kwargs), span);
}

ExprPtr Zeros() { return MakeTuple::Make({Int(0), Int(0)}); }
ExprPtr Extents() { return MakeTuple::Make({Int(16), Int(16)}); }

// x = <value> in an InCore function over a: Tensor[[16, 16], FP32].
FunctionPtr Kernel(const VarPtr& a, const VarPtr& x, const ExprPtr& value, FunctionType type = FunctionType::InCore) {
  auto body = SeqStmts::Make({AssignStmt::Make(x, value, At(2)), ReturnStmt::Make({}, At(3))});
  return MakeFn("k", {a}, {}, body, type);
}

VerifyOptions Only() {
  VerifyOptions options;
  options.ssa = options.type_check = options.placement = false;
  return options;
}

TEST(PropertyRules, NestedCallIsAnErrorOnlyWhileNoNestedCallsHolds) {
  auto a = V("a", TensorT({16, 16}));
  auto x = V("x", TensorT({16, 16}));
  auto inner = Op("tensor.exp", {a}, {}, At(2, 20));
  auto fn = Kernel(a, x, Op("tensor.add", {inner, a}, {}, At(2, 9)));
  EXPECT_TRUE(VerifyFunction(fn, Only()).empty());
  VerifyOptions options = Only();
  options.no_nested_calls = true;
  auto ds = VerifyFunction(fn, options);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "NoNestedCalls", "NESTED_CALL", "k", "Call", At(2, 20),
                   "the call of 'tensor.exp' is nested in an argument of 'tensor.add', but NoNestedCalls holds: call "
                   "arguments are variables or constants. The pass that made it must assign the inner call to a "
                   "variable first (as FlattenCallExpr does), or declare NoNestedCalls invalidated");
}

TEST(PropertyRules, TensorOpsInKernelsBreakIncoreTileOps) {
  auto a = V("a", TensorT({16, 16}));
  auto x = V("x", TensorT({16, 16}));
  VerifyOptions options = Only();
  options.incore_tile_ops = true;
  auto ds = VerifyFunction(Kernel(a, x, Op("tensor.exp", {a}, {}, At(2, 9))), options);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "IncoreTileOps", "TENSOR_OP_IN_KERNEL", "k", "Call", At(2, 9),
                   "'tensor.exp' is a tensor op left in InCore function 'k', but IncoreTileOps holds: kernels use "
                   "tile ops only ('tile.exp' here). Run ConvertTensorToTileOps after the pass that introduced it");
  // Orchestration code keeps its tensor ops.
  EXPECT_TRUE(VerifyFunction(Kernel(a, x, Op("tensor.exp", {a}), FunctionType::Orchestration), options).empty());
}

TEST(PropertyRules, TilesNeedASpaceAndThenAMemRef) {
  auto a = V("a", TensorT({16, 16}));
  auto open = Op("tile.load", {a, Zeros(), Extents()});
  auto t = V("t", open->type, At(2));
  VerifyOptions options = Only();
  options.tile_memory_inferred = true;
  auto ds = VerifyFunction(Kernel(a, t, open), options);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "TileMemoryInferred", "MISSING_MEMORY_SPACE", "k", "Var", At(2),
                   "tile 't' (Tile[[16, 16], FP32]) has no memory space, but TileMemoryInferred holds; run "
                   "InferTileMemorySpace after the pass that made it, or give its op a target_memory");

  auto placed = Op("tile.load", {a, Zeros(), Extents()}, {{"target_memory", EnumAttr::Of(MemorySpace::Vec)}});
  auto u = V("u", placed->type, At(2));
  options.has_memrefs = true;
  ds = VerifyFunction(Kernel(a, u, placed), options);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "HasMemRefs", "MISSING_MEMREF", "k", "Var", At(2),
                   "tile 'u' (Tile[[16, 16], FP32, Vec]) has no MemRef, but HasMemRefs holds; run InitMemRef after "
                   "the pass that made it");
}

TEST(PropertyRules, AnAddressPastTheCapacityBreaksAllocatedMemoryAddr) {
  auto a = V("a", TensorT({16, 16}));
  auto placed = Op("tile.load", {a, Zeros(), Extents()}, {{"target_memory", EnumAttr::Of(MemorySpace::Vec)}});
  auto type = std::make_shared<TileType>(*As<TileType>(placed->type));
  auto base = V("base", PtrType::Make(MemorySpace::Vec));
  type->memref = MemRef::Make("mem_vec_0", MemorySpace::Vec, base, Int(1024), 1024);
  auto t = V("t", type, At(2));
  VerifyOptions options = Only();
  options.allocated_memory_addr = true;
  options.capacities[MemorySpace::Vec] = 1536;
  auto ds = VerifyFunction(Kernel(a, t, placed), options);
  ASSERT_EQ(ds.size(), 1u) << Dump(ds);
  ExpectDiagnostic(ds[0], "AllocatedMemoryAddr", "ADDRESS_OUT_OF_RANGE", "k", "Var", At(2),
                   "tile 't' (" + TypeToString(type) +
                       ") lies at bytes [1024, 2048) of Vec, which has 1536 bytes, but AllocatedMemoryAddr holds; run "
                       "AllocateMemoryAddr after the pass that moved it");
  options.capacities[MemorySpace::Vec] = 2048;
  EXPECT_TRUE(VerifyFunction(Kernel(a, t, placed), options).empty());
}

TEST(PropertyRules, TheVerificationInstrumentChecksTheRulesOfPropertiesThatHold) {
  auto a = V("a", TensorT({16, 16}));
  auto x = V("x", TensorT({16, 16}));
  auto program = Program::Make("p", {Kernel(a, x, Op("tensor.exp", {a}, {}, At(2, 9)))});
  pass::VerificationInstrument instrument;
  pass::PassContext ctx;
  ctx.set_properties({pass::IRProperty::SSAForm});
  EXPECT_NO_THROW(instrument.RunBeforePipeline(program, ctx));
  ctx.set_properties({pass::IRProperty::SSAForm, pass::IRProperty::IncoreTileOps});
  try {
    instrument.RunBeforePipeline(program, ctx);
    ADD_FAILURE() << "the instrument accepted a tensor op in a kernel while IncoreTileOps holds";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("[IncoreTileOps/TENSOR_OP_IN_KERNEL]"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace pypto::ir::verifier_test
