// PYPTO_TCVT_FLOAT_MODES_AS_PTO_ISA_CPU_SIM: TCVT from float to half rounds
// to nearest even under every mode, as pto-isa's CPU simulation does
// (pto/cpu/TCvt.hpp), where the chip and the default build apply the mode;
// float to integer conversions keep their mode.
#include "isa/isa_test_util.h"

PYPTO_ISA_DEFINE_CURRENT_CORE()

namespace pypto::isa_test {
namespace {

using namespace pto;

class TcvtAsCpuSim : public IsaTest {};

TEST_F(TcvtAsCpuSim, FloatToHalfRoundsToNearestUnderEveryMode) {
  Tile<TileType::Vec, float, 1, 8> src;
  Tile<TileType::Vec, half, 1, 16, BLayout::RowMajor, 1, 8> dst;
  Place(src);
  Place(dst);
  // 1 + 2^-11 + 2^-13 lies between the halves 1 and 1 + 2^-10, nearer the upper one.
  const float x = 1.0f + 0x1p-11f + 0x1p-13f;
  for (int c = 0; c < 8; ++c) src.At(0, c) = c % 2 ? -x : x;
  for (RoundMode mode : {RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL, RoundMode::CAST_TRUNC, RoundMode::CAST_ROUND,
                         RoundMode::CAST_ODD}) {
    TCVT(dst, src, mode);
    for (int c = 0; c < 8; ++c) {
      EXPECT_EQ(static_cast<float>(dst.At(0, c)), c % 2 ? -(1.0f + 0x1p-10f) : 1.0f + 0x1p-10f)
          << static_cast<int>(mode) << " " << c;
    }
  }
}

TEST_F(TcvtAsCpuSim, FloatToIntegerKeepsItsMode) {
  Tile<TileType::Vec, float, 1, 8> src;
  Tile<TileType::Vec, int32_t, 1, 8> dst;
  Place(src);
  Place(dst);
  for (int c = 0; c < 8; ++c) src.At(0, c) = 2.75f;
  TCVT(dst, src, RoundMode::CAST_FLOOR);
  EXPECT_EQ(dst.At(0, 0), 2);
  TCVT(dst, src, RoundMode::CAST_CEIL);
  EXPECT_EQ(dst.At(0, 0), 3);
}

}  // namespace
}  // namespace pypto::isa_test
