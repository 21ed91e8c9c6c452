// PTO_CHECK_NAN: the first instruction whose result holds a NaN records a
// fault naming itself, its line and where the NaN is; results without NaN,
// and NaN in the pad or outside the valid region, pass.
#include <cmath>
#include <limits>

#include "isa/isa_test_util.h"

PYPTO_ISA_DEFINE_CURRENT_CORE()

namespace pypto::isa_test {
namespace {

using namespace pto;
using F = Tile<TileType::Vec, float, 8, 16>;

class NanCheck : public IsaTest {};

TEST_F(NanCheck, TheFirstInstructionProducingANaNIsTheFault) {
  F a, b;
  Place(a);
  Place(b);
  Fill(a, 0.5, 2);
  a.At(2, 5) = -1.0f;
  PYPTO_LOC(12);
  TSQRT(b, a);
  ASSERT_TRUE(core_.faulted());
  EXPECT_EQ(core_.fault.kind, FaultKind::NaN);
  EXPECT_STREQ(core_.fault.instruction, "TSQRT");
  EXPECT_EQ(core_.fault.line, 12u);
  EXPECT_EQ(core_.fault.value, 2);  // row
  EXPECT_EQ(core_.fault.limit, 5);  // column
  PYPTO_LOC(13);
  TADD(b, b, a);  // NaN flows on: counted, not reported again
  EXPECT_STREQ(core_.fault.instruction, "TSQRT");
  EXPECT_EQ(core_.fault_count, 2u);
}

TEST_F(NanCheck, FiniteResultsAndInfinitiesPass) {
  F a, b;
  Place(a);
  Place(b);
  Fill(a, -3, 3);
  a.At(0, 0) = std::numeric_limits<float>::infinity();
  TEXP(b, a);
  TMULS(b, b, 2.0f);
  EXPECT_FALSE(core_.faulted());
}

TEST_F(NanCheck, OnlyTheValidRegionIsChecked) {
  using P = Tile<TileType::Vec, float, 8, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  P a(4, 8), b(4, 8);
  Place(a);
  Place(b);
  Fill(a, 1, 2);
  a.At(6, 12) = std::numeric_limits<float>::quiet_NaN();  // outside the 4x8 valid region
  TADDS(b, a, 1.0f);
  EXPECT_FALSE(core_.faulted());
}

TEST_F(NanCheck, ALoadOfANaNNamesTheLoad) {
  float global[4 * 16];
  for (float& v : global) v = 1.0f;
  global[16 + 3] = std::numeric_limits<float>::quiet_NaN();
  Tile<TileType::Vec, float, 4, 16> t;
  Place(t);
  GlobalTensor<float, Shape<1, 1, 1, 4, 16>, Stride<64, 64, 64, 16, 1>> g(global);
  PYPTO_LOC(7);
  TLOAD(t, g);
  ASSERT_TRUE(core_.faulted());
  EXPECT_STREQ(core_.fault.instruction, "TLOAD");
  EXPECT_EQ(core_.fault.value, 1);
  EXPECT_EQ(core_.fault.limit, 3);
}

TEST_F(NanCheck, HalfResultsAreCheckedToo) {
  using H = Tile<TileType::Vec, half, 8, 16>;
  H a, b;
  Place(a);
  Place(b);
  Fill(a, 1, 2);
  a.At(7, 15) = half(-4.0f);
  PYPTO_LOC(3);
  TLOG(b, a);
  ASSERT_TRUE(core_.faulted());
  EXPECT_EQ(core_.fault.value, 7);
  EXPECT_EQ(core_.fault.limit, 15);
}

}  // namespace
}  // namespace pypto::isa_test
