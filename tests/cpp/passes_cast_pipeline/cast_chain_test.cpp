#include "cast_chain.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "pypto/backend/platform.h"

namespace pypto::test {
namespace {

using backend::Platform;
using ir::DataType;
using passes::CastLoss;
using passes::NativeCastChain;

using Chain = std::optional<std::vector<DataType>>;

const Platform& A2A3() { return Platform::Get("a2a3"); }
const Platform& A5() { return Platform::Get("a5"); }

TEST(CastChain, NativeCastsAreOneStepAndIdentityCastsNone) {
  EXPECT_EQ(NativeCastChain(A2A3(), DataType::FP16, DataType::INT8), Chain({DataType::INT8}));
  EXPECT_EQ(NativeCastChain(A5(), DataType::FP16, DataType::INT8), Chain({DataType::INT8}));
  EXPECT_EQ(NativeCastChain(A2A3(), DataType::FP16, DataType::FP16), Chain(std::vector<DataType>{}));
}

// The two tables differ: a5 converts between FP16 and BF16 directly, a2a3
// goes through FP32 (which holds every FP16 and BF16 value exactly).
TEST(CastChain, HalfPrecisionFloatsMeetInFp32OnA2A3AndDirectlyOnA5) {
  EXPECT_EQ(NativeCastChain(A2A3(), DataType::FP16, DataType::BF16), Chain({DataType::FP32, DataType::BF16}));
  EXPECT_EQ(NativeCastChain(A2A3(), DataType::BF16, DataType::FP16), Chain({DataType::FP32, DataType::FP16}));
  EXPECT_EQ(NativeCastChain(A5(), DataType::FP16, DataType::BF16), Chain({DataType::BF16}));
  EXPECT_EQ(NativeCastChain(A5(), DataType::BF16, DataType::FP16), Chain({DataType::FP16}));
}

TEST(CastChain, SmallIntegersWidenThroughFp16) {
  EXPECT_EQ(NativeCastChain(A2A3(), DataType::INT8, DataType::FP32), Chain({DataType::FP16, DataType::FP32}));
  EXPECT_EQ(NativeCastChain(A5(), DataType::UINT8, DataType::FP32), Chain({DataType::FP16, DataType::FP32}));
}

// INT32 -> FP16 is one instruction on a2a3 only. On a5 both INT16 and FP32
// are one step away; FP32 keeps the range of INT32 (it only rounds), INT16
// would wrap large values, so FP32 wins.
TEST(CastChain, PrefersIntermediatesThatKeepTheRange) {
  EXPECT_EQ(NativeCastChain(A2A3(), DataType::INT32, DataType::FP16), Chain({DataType::FP16}));
  EXPECT_EQ(NativeCastChain(A5(), DataType::INT32, DataType::FP16), Chain({DataType::FP32, DataType::FP16}));
}

// FP16 -> INT64 takes two steps on both tables: through FP32 (exact) or
// through INT32 (drops the fraction before the final rounding). FP32 wins.
TEST(CastChain, PrefersIntermediatesThatKeepThePrecision) {
  for (const Platform* platform : {&A2A3(), &A5()}) {
    EXPECT_EQ(NativeCastChain(*platform, DataType::FP16, DataType::INT64), Chain({DataType::FP32, DataType::INT64}))
        << platform->name;
  }
}

TEST(CastChain, Fp8ExistsOnlyOnA5AndGoesThroughFp32) {
  EXPECT_EQ(NativeCastChain(A5(), DataType::FP16, DataType::FP8E4M3FN), Chain({DataType::FP32, DataType::FP8E4M3FN}));
  EXPECT_EQ(NativeCastChain(A5(), DataType::FP8E5M2, DataType::BF16), Chain({DataType::FP32, DataType::BF16}));
  EXPECT_EQ(NativeCastChain(A2A3(), DataType::FP16, DataType::FP8E4M3FN), std::nullopt);
}

// FP32 -> INT8 through FP16 rounds twice: to FP16's grid, then to an
// integer (FP32 values just above k + 0.5 become the FP16 tie, then go to
// even). Through INT16 it rounds once: a step longer, but exact.
TEST(CastChain, RoundsOnceEvenWhenThatTakesMoreSteps) {
  for (const Platform* platform : {&A2A3(), &A5()}) {
    EXPECT_EQ(NativeCastChain(*platform, DataType::FP32, DataType::INT8),
              Chain({DataType::INT16, DataType::FP16, DataType::INT8}))
        << platform->name;
    EXPECT_EQ(NativeCastChain(*platform, DataType::FP32, DataType::UINT8),
              Chain({DataType::INT16, DataType::FP16, DataType::UINT8}))
        << platform->name;
  }
  // BF16 fits FP16's significand: nothing rounds before the integer.
  EXPECT_EQ(NativeCastChain(A5(), DataType::BF16, DataType::INT8), Chain({DataType::FP16, DataType::INT8}));
}

// Native integer casts wrap, as the cast itself does: INT64 -> INT32 ->
// INT16 wraps like INT64 -> INT16; through FP32 large values would round
// and saturate instead.
TEST(CastChain, IntegerHopsWrapLikeTheCast) {
  for (const Platform* platform : {&A2A3(), &A5()}) {
    EXPECT_EQ(NativeCastChain(*platform, DataType::INT64, DataType::INT16), Chain({DataType::INT32, DataType::INT16}))
        << platform->name;
  }
}

TEST(CastChain, NoChainWhenNothingLeadsThere) {
  EXPECT_EQ(NativeCastChain(A2A3(), DataType::FP32, DataType::UINT32), std::nullopt);
  EXPECT_EQ(NativeCastChain(A5(), DataType::BOOL, DataType::FP32), std::nullopt);
}

// Equal steps and equal loss: the platform's dtypes list decides.
TEST(CastChain, TiesGoToTheDtypeListedFirst) {
  Platform platform;
  platform.name = "tie";
  platform.casts = {{DataType::INT8, DataType::FP16},
                    {DataType::FP16, DataType::INT32},
                    {DataType::INT8, DataType::INT16},
                    {DataType::INT16, DataType::INT32}};
  platform.dtypes = {DataType::INT8, DataType::INT16, DataType::FP16, DataType::INT32};
  EXPECT_EQ(NativeCastChain(platform, DataType::INT8, DataType::INT32), Chain({DataType::INT16, DataType::INT32}));
  platform.dtypes = {DataType::INT8, DataType::FP16, DataType::INT16, DataType::INT32};
  EXPECT_EQ(NativeCastChain(platform, DataType::INT8, DataType::INT32), Chain({DataType::FP16, DataType::INT32}));
}

using Plan = std::optional<passes::CastPlan>;

void ExpectPlan(const Platform& platform, DataType from, DataType to, const std::vector<DataType>& chain,
                std::optional<DataType> wrap_in = std::nullopt, const std::vector<DataType>& after_wrap = {}) {
  Plan plan = passes::PlanCast(platform, from, to);
  ASSERT_TRUE(plan.has_value()) << from.name() << " -> " << to.name();
  EXPECT_EQ(plan->chain, chain) << from.name() << " -> " << to.name();
  EXPECT_EQ(plan->wrap_in, wrap_in) << from.name() << " -> " << to.name();
  EXPECT_EQ(plan->after_wrap, after_wrap) << from.name() << " -> " << to.name();
}

// No a2a3 chain wraps INT32 into INT8 (through FP16 it saturates), so the
// value wraps in INT32 first; then it is one INT8 holds, and the chain
// through FP16 is exact.
TEST(CastPlan, IntegerNarrowingsWithoutAWrappingChainWrapFirst) {
  ExpectPlan(A2A3(), DataType::INT32, DataType::INT8, {}, DataType::INT32, {DataType::FP16, DataType::INT8});
  ExpectPlan(A2A3(), DataType::INT16, DataType::UINT8, {}, DataType::INT16, {DataType::FP16, DataType::UINT8});
  ExpectPlan(A2A3(), DataType::INT64, DataType::INT8, {}, DataType::INT64,
             {DataType::INT32, DataType::FP16, DataType::INT8});
  // a5 has no INT32 -> FP16: the wrapped value goes through INT16, exactly.
  ExpectPlan(A5(), DataType::INT32, DataType::INT8, {}, DataType::INT32,
             {DataType::INT16, DataType::FP16, DataType::INT8});
}

// INT8 cannot hold 255, UINT8 not -1: the value first goes exactly to the
// narrowest integer that holds both ranges.
TEST(CastPlan, SignChangesWrapInAWiderInteger) {
  ExpectPlan(A2A3(), DataType::INT8, DataType::UINT8, {DataType::FP16, DataType::INT16}, DataType::INT16,
             {DataType::FP16, DataType::UINT8});
  ExpectPlan(A2A3(), DataType::UINT8, DataType::INT8, {DataType::FP16, DataType::INT16}, DataType::INT16,
             {DataType::FP16, DataType::INT8});
}

TEST(CastPlan, OtherCastsAreOneChain) {
  ExpectPlan(A2A3(), DataType::INT64, DataType::INT16, {DataType::INT32, DataType::INT16});
  ExpectPlan(A2A3(), DataType::INT8, DataType::INT32, {DataType::FP16, DataType::INT32});
  ExpectPlan(A2A3(), DataType::FP32, DataType::INT8, {DataType::INT16, DataType::FP16, DataType::INT8});
  ExpectPlan(A2A3(), DataType::FP16, DataType::INT8, {DataType::INT8});
  ExpectPlan(A2A3(), DataType::INT8, DataType::INT8, {});
  EXPECT_EQ(passes::PlanCast(A2A3(), DataType::FP32, DataType::UINT32), std::nullopt);
}

TEST(CastChain, LossGradesRangeAbovePrecision) {
  EXPECT_EQ(CastLoss(DataType::INT8, DataType::FP16), 0);
  EXPECT_EQ(CastLoss(DataType::UINT8, DataType::INT16), 0);
  EXPECT_EQ(CastLoss(DataType::FP16, DataType::FP32), 0);
  EXPECT_EQ(CastLoss(DataType::BF16, DataType::FP32), 0);
  EXPECT_EQ(CastLoss(DataType::INT32, DataType::FP32), 1);
  EXPECT_EQ(CastLoss(DataType::FP16, DataType::BF16), 1);
  EXPECT_EQ(CastLoss(DataType::FP16, DataType::INT32), 1);
  EXPECT_EQ(CastLoss(DataType::INT32, DataType::INT16), 2);
  EXPECT_EQ(CastLoss(DataType::INT8, DataType::UINT8), 2);
  EXPECT_EQ(CastLoss(DataType::FP32, DataType::FP16), 2);
  EXPECT_EQ(CastLoss(DataType::UINT16, DataType::FP16), 2);  // 65535 > 65504
}

TEST(CastChain, ListsWhatADtypeReaches) {
  EXPECT_EQ(passes::DirectCastTargets(A2A3(), DataType::INT8), std::vector<DataType>{DataType::FP16});
  EXPECT_EQ(passes::ChainedCastTargets(A2A3(), DataType::INT8),
            (std::vector<DataType>{DataType::UINT8, DataType::INT16, DataType::INT32, DataType::INT64, DataType::BF16,
                                   DataType::FP32}));
}

}  // namespace
}  // namespace pypto::test
