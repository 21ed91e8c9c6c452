#include "lower_composite_ops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "support/pass_test_util.h"
#include "pypto/pass/manager.h"
#include "pypto/pass/registry.h"

namespace pypto::test {
namespace {

using passes::LowerCompositeOpsPass;

// out = op(x) on a [16, 64] tile of `dtype`.
ProgramPtr UnaryKernel(const std::string& op, DataType dtype, FunctionType type = FunctionType::InCore) {
  auto x = TensorVar("x", {16, 64}, dtype);
  auto out = TensorVar("out", {16, 64}, dtype);
  VarPtr a, y, out_1;
  auto body = Seq({Let(a, "a", Op("tile.load", {x, Tuple({0, 0}), Tuple({16, 64})})), Let(y, "y", Op(op, {a})),
                   Let(out_1, "out_1", Op("tile.store", {y, Tuple({0, 0}), out})), Return({})});
  return Program::Make("test", {Kernel({x, out}, {ParamDirection::In, ParamDirection::Out}, body, {}, "k", type)});
}

std::vector<Ref<AssignStmt>> Assignments(const ProgramPtr& program) {
  std::vector<Ref<AssignStmt>> assigns;
  for (const StmtPtr& stmt : As<SeqStmts>(BodyOf(program))->stmts) {
    if (auto assign = As<AssignStmt>(stmt)) assigns.push_back(assign);
  }
  return assigns;
}

TEST(LowerCompositeOps, DescribesItself) {
  LowerCompositeOpsPass pass;
  EXPECT_EQ(pass.name(), "LowerCompositeOps");
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::SSAForm));
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::NoNestedCalls));
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::IncoreTileOps));
}

// Tensor ops have become tile ops, and what the rules write is still to be
// flattened to 2-D and to have its casts legalized.
TEST(LowerCompositeOps, IsRegisteredByItsPluginAndRunsRightAfterTheTileConversion) {
  EXPECT_EQ(pass::PassRegistry::Global().Create("LowerCompositeOps")->name(), "LowerCompositeOps");
  for (const char* pipeline : {"default", "debug"}) {
    std::vector<std::string> names = pass::PassManager::FromPipeline(pipeline).pass_names();
    auto at = [&](const char* name) { return PositionOf(names, name); };
    ASSERT_LT(at("LowerCompositeOps"), static_cast<std::ptrdiff_t>(names.size())) << pipeline;
    EXPECT_EQ(at("ConvertTensorToTileOps") + 1, at("LowerCompositeOps")) << pipeline;
    EXPECT_LT(at("LowerCompositeOps"), at("FlattenTileNdTo2D")) << pipeline;
    EXPECT_LT(at("LowerCompositeOps"), at("LegalizeTileCast")) << pipeline;
  }
}

// Every op the rules write is one the npu backend has an instruction for.
TEST(LowerCompositeOps, WritesOnlyPrimitiveTileOps) {
  const std::set<std::string> primitive = {"tile.load", "tile.store", "tile.muls", "tile.adds", "tile.sub",
                                           "tile.mul",  "tile.cast",  "tile.ands"};
  for (const char* op : {"tile.sin", "tile.cos"}) {
    for (DataType dtype : {DataType::FP32, DataType::FP16, DataType::BF16}) {
      for (const Ref<AssignStmt>& assign : Assignments(RunPass<LowerCompositeOpsPass>(UnaryKernel(op, dtype)))) {
        auto call = As<Call>(assign->value);
        ASSERT_TRUE(call) << op;
        EXPECT_TRUE(primitive.count(call->op->name)) << op << " " << dtype.name() << " wrote " << call->op->name;
      }
    }
  }
}

// The result keeps its variable, so the store still reads it; each step is
// named after it.
TEST(LowerCompositeOps, TheLastStepDefinesTheOriginalResult) {
  ProgramPtr input = UnaryKernel("tile.sin", DataType::FP16);
  VarPtr y = Assignments(input)[1]->var;
  std::vector<Ref<AssignStmt>> assigns = Assignments(RunPass<LowerCompositeOpsPass>(input));
  const Ref<AssignStmt>& last = assigns[assigns.size() - 2];
  EXPECT_EQ(last->var, y);
  EXPECT_EQ(As<Call>(last->value)->op->name, "tile.cast");
  EXPECT_EQ(As<TileType>(last->value->type)->dtype, DataType::FP16);
  EXPECT_EQ(assigns[1]->var->name_hint, "y_fp32");
  for (size_t i = 1; i + 2 < assigns.size(); ++i) EXPECT_EQ(assigns[i]->var->name_hint.rfind("y_", 0), 0u);
}

TEST(LowerCompositeOps, LeavesFunctionsOtherThanKernelsAndLoweredKernelsAlone) {
  // Not a valid program (tile ops outside a kernel), so run without the verifier.
  ProgramPtr opaque = UnaryKernel("tile.sin", DataType::FP32, FunctionType::Opaque);
  pass::PassContext ctx;
  EXPECT_EQ(LowerCompositeOpsPass().Run(opaque, ctx), opaque);
  ProgramPtr once = RunPass<LowerCompositeOpsPass>(UnaryKernel("tile.cos", DataType::FP32));
  EXPECT_EQ(RunPass<LowerCompositeOpsPass>(once), once);
}

TEST(LowerCompositeOps, DropsACompositeOpWhoseValueNobodyReads) {
  auto x = TensorVar("x", {16, 64});
  VarPtr a;
  auto body = Seq({Let(a, "a", Op("tile.load", {x, Tuple({0, 0}), Tuple({16, 64})})), Eval(Op("tile.sin", {a})),
                   Return({})});
  auto program = Program::Make("test", {Kernel({x}, {ParamDirection::In}, body, {})});
  EXPECT_EQ(Assignments(RunPass<LowerCompositeOpsPass>(program)).size(), 1u);
}

// Runs the lowered steps on one FP32 value, each op as the vector unit
// computes it element by element, and returns the value of the result.
float Evaluate(const std::vector<Ref<AssignStmt>>& steps, float x) {
  std::unordered_map<const Var*, double> env;  // FP32 and INT32 values, both exact in a double
  env[steps.front()->var.get()] = x;
  auto value = [&](const ExprPtr& e) -> double {
    if (auto c = As<ConstFloat>(e)) return static_cast<float>(c->value);
    if (auto c = As<ConstInt>(e)) return static_cast<double>(c->value);
    return env.at(As<Var>(e).get());
  };
  double result = 0;
  for (size_t i = 1; i + 1 < steps.size(); ++i) {
    auto call = As<Call>(steps[i]->value);
    const std::string& op = call->op->name;
    const double a = value(call->args[0]);
    const double b = call->args.size() > 1 ? value(call->args[1]) : 0;
    if (op == "tile.muls" || op == "tile.mul") {
      result = static_cast<float>(a * b);
    } else if (op == "tile.adds") {
      result = static_cast<float>(a + b);
    } else if (op == "tile.sub") {
      result = static_cast<float>(a - b);
    } else if (op == "tile.ands") {
      result = static_cast<double>(static_cast<int32_t>(a) & static_cast<int32_t>(b));
    } else if (op == "tile.cast") {
      const bool to_int = *call->kwargs.Get<DataType>("target_type") == DataType::INT32;
      const bool floor = call->kwargs.Get<int64_t>("mode") == int64_t{3};
      result = !to_int ? a : floor ? std::floor(a) : std::nearbyint(a);
    } else {
      ADD_FAILURE() << "unexpected " << op;
    }
    env[steps[i]->var.get()] = result;
  }
  return static_cast<float>(result);
}

// Within 2.4e-7 (4 units in the last place of results in [1/2, 1)) of the
// exact value, over the whole range the reduction is exact for
// (|x| < 4096 pi), near the multiples of pi/2 where the reduction cancels
// most, and at zero.
TEST(LowerCompositeOps, SineAndCosineAreAccurateOverTheWholeReducedRange) {
  for (const char* op : {"tile.sin", "tile.cos"}) {
    std::vector<Ref<AssignStmt>> steps = Assignments(RunPass<LowerCompositeOpsPass>(UnaryKernel(op, DataType::FP32)));
    std::vector<float> inputs = {0.0f, -0.0f, 1e-30f, -1e-20f};
    for (int i = -10000; i <= 10000; ++i) inputs.push_back(12867.0f * static_cast<float>(i) / 10000);
    for (int k = -8192; k <= 8192; k += 7) {
      const float near = static_cast<float>(k * M_PI / 2);
      inputs.insert(inputs.end(), {near, std::nextafter(near, 1e9f), std::nextafter(near, -1e9f)});
    }
    double worst = 0;
    float worst_at = 0;
    for (float x : inputs) {
      const double exact = op == std::string("tile.sin") ? std::sin(static_cast<double>(x)) : std::cos(static_cast<double>(x));
      const double error = std::abs(Evaluate(steps, x) - exact);
      if (error <= worst) continue;
      worst = error;
      worst_at = x;
    }
    EXPECT_LT(worst, 4 * 0x1p-24) << op << " is off by " << worst << " at " << worst_at;
  }
}

}  // namespace
}  // namespace pypto::test
