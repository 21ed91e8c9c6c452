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

// a2a3 INT64 -> INT8: two three-step chains; through FP32 (keeps INT64's
// range) beats through INT32 (wraps it). Longer chains are never considered.
TEST(CastChain, TakesTheFewestStepsThenTheLeastLoss) {
  EXPECT_EQ(NativeCastChain(A2A3(), DataType::FP32, DataType::INT8), Chain({DataType::FP16, DataType::INT8}));
  EXPECT_EQ(NativeCastChain(A2A3(), DataType::INT64, DataType::INT8),
            Chain({DataType::FP32, DataType::FP16, DataType::INT8}));
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
