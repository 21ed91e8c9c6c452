// Runs the per-op case tables and checks that they cover every registered op.
#include <gtest/gtest.h>

#include <set>

#include "op_test_util.h"

namespace pypto::ops::testing {
namespace {

std::vector<SuccessCase> AllSuccessCases() {
  std::vector<SuccessCase> all;
  for (auto part : {TensorSuccessCases(), TileSuccessCases(), SystemArraySuccessCases(), CommSuccessCases(),
                    PipeSuccessCases()}) {
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

std::vector<ErrorCase> AllErrorCases() {
  std::vector<ErrorCase> all;
  for (auto part : {TensorErrorCases(), TileErrorCases(), SystemArrayErrorCases(), CommErrorCases(),
                    PipeErrorCases()}) {
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

template <class Case>
std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.op + "_" + std::to_string(info.index);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class OpDeduces : public ::testing::TestWithParam<SuccessCase> {};

TEST_P(OpDeduces, ExactResultType) {
  const SuccessCase& c = GetParam();
  EXPECT_EQ(Describe(Deduce(c.op, c.args, c.kwargs)), c.expected);
}

INSTANTIATE_TEST_SUITE_P(Ops, OpDeduces, ::testing::ValuesIn(AllSuccessCases()), CaseName<SuccessCase>);

class OpRejects : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(OpRejects, WithTypeErrorMessage) {
  const ErrorCase& c = GetParam();
  std::string message = ErrorOf(c.op, c.args, c.kwargs);
  EXPECT_NE(message.find(c.fragment), std::string::npos) << "message: " << message << "\nexpected: " << c.fragment;
}

INSTANTIATE_TEST_SUITE_P(Ops, OpRejects, ::testing::ValuesIn(AllErrorCases()), CaseName<ErrorCase>);

bool IsOurNamespace(const std::string& ns) { return ns == "tensor" || ns == "tile" || ns == "system" || ns == "array"; }

TEST(OpCaseCoverage, EveryOpHasASuccessAndAnErrorCase) {
  std::set<std::string> succeeded;
  std::set<std::string> rejected;
  for (const auto& c : AllSuccessCases()) succeeded.insert(c.op);
  for (const auto& c : AllErrorCases()) rejected.insert(c.op);
  for (const OpDef* op : OpRegistry::Global().List()) {
    if (!IsOurNamespace(op->name_space())) continue;
    EXPECT_TRUE(succeeded.count(op->name())) << op->name() << " has no successful deduction case";
    EXPECT_TRUE(rejected.count(op->name())) << op->name() << " has no error case";
  }
  for (const auto& name : succeeded) EXPECT_NE(OpRegistry::Global().Find(name), nullptr) << name;
  for (const auto& name : rejected) EXPECT_NE(OpRegistry::Global().Find(name), nullptr) << name;
}

// The declared memory rules are what InferTileMemorySpace works from, so every
// tile argument of a tile op and every tile result must have one.
TEST(OpCaseCoverage, TileOpsDeclareMemoryForTileInputsAndResults) {
  for (const auto& c : AllSuccessCases()) {
    const OpDef& op = OpRegistry::Global().Get(c.op);
    if (op.name_space() != "tile") continue;
    for (size_t i = 0; i < c.args.size(); ++i) {
      if (!IsA<TileType>(c.args[i]->type)) continue;
      EXPECT_NE(op.input_memory(static_cast<int>(i)), nullptr) << c.op << " argument " << i;
    }
    TypePtr result = Deduce(c.op, c.args, c.kwargs);
    if (IsA<TileType>(result) || IsA<PtrType>(result)) {
      EXPECT_NE(op.output_memory().kind, OutputMemoryRule::Kind::kNone) << c.op;
    }
  }
}

}  // namespace
}  // namespace pypto::ops::testing
