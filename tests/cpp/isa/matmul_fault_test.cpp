// TMATMUL and friends against a double-precision reference; faults recorded
// in the SimCore instead of crashes.
#include <cmath>

#include "isa_test_util.h"

namespace pypto::isa_test {
namespace {

using namespace pto;

class Cube : public IsaTest {};

template <typename C, typename A, typename B>
void ExpectProduct(const C& acc, const A& a, const B& b, int m, int n, int k, const std::vector<double>& init,
                   double tol) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double want = init.empty() ? 0.0 : init[i * n + j];
      for (int p = 0; p < k; ++p) {
        want += static_cast<double>(static_cast<float>(a.At(i, p))) * static_cast<float>(b.At(p, j));
      }
      EXPECT_NEAR(static_cast<double>(acc.At(i, j)), want, tol * std::max(1.0, std::fabs(want))) << i << "," << j;
    }
  }
}

TEST_F(Cube, FloatMatmulOnSizesThatAreNotBlockMultiples) {
  // 40 x 100 @ 100 x 70 crosses every block edge of the blocked kernel.
  TileLeft<float, 48, 112, 40, 100> a;
  TileRight<float, 112, 80, 100, 70> b;
  TileAcc<float, 48, 80, 40, 70> c;
  Place(a);
  Place(b);
  Place(c);
  Fill(a, -1, 1);
  Fill(b, -1, 1);
  TMATMUL(c, a, b);
  ExpectProduct(c, a, b, 40, 70, 100, {}, 1e-5);
  std::vector<double> before(40 * 70);
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 70; ++j) before[i * 70 + j] = c.At(i, j);
  TMATMUL_ACC(c, a, b);
  ExpectProduct(c, a, b, 40, 70, 100, before, 1e-5);
  EXPECT_FALSE(core_.faulted());
}

TEST_F(Cube, HalfAndBf16OperandsAccumulateInFloat) {
  TileLeft<half, 16, 256> a;
  TileRight<half, 256, 16> b;
  TileAcc<float, 16, 16> c;
  Place(a);
  Place(b);
  Place(c);
  Fill(a, -1, 1);
  Fill(b, -1, 1);
  TMATMUL(c, a, b);
  ExpectProduct(c, a, b, 16, 16, 256, {}, 1e-5);
  TileLeft<bfloat16, 16, 64> x;
  TileRight<bfloat16, 64, 16> y;
  Place(x);
  Place(y);
  Fill(x, -2, 2);
  Fill(y, -2, 2);
  TMATMUL(c, x, y);
  ExpectProduct(c, x, y, 16, 16, 64, {}, 1e-5);
}

TEST_F(Cube, Int8AccumulatesExactlyInInt32) {
  TileLeft<int8_t, 8, 96> a;
  TileRight<int8_t, 96, 8> b;
  TileAcc<int32_t, 8, 8> c;
  Place(a);
  Place(b);
  Place(c);
  for (int i = 0; i < a.kSize; ++i) a.data()[i] = static_cast<int8_t>(127 - (i % 255));
  for (int i = 0; i < b.kSize; ++i) b.data()[i] = static_cast<int8_t>((i * 37) % 256 - 128);
  TMATMUL(c, a, b);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      int32_t want = 0;
      for (int p = 0; p < 96; ++p) want += a.At(i, p) * b.At(p, j);
      EXPECT_EQ(c.At(i, j), want);
    }
  }
}

TEST_F(Cube, FourOperandAccAndBias) {
  TileLeft<float, 8, 8> a;
  TileRight<float, 8, 8> b;
  TileAcc<float, 8, 8> cin, cout;
  Tile<TileType::Vec, float, 1, 8> bias;  // the simulator reads row 0 of any tile as the bias row
  Place(a);
  Place(b);
  Place(cin);
  Place(cout);
  Place(bias);
  Fill(a, -1, 1);
  Fill(b, -1, 1);
  Fill(cin, -1, 1);
  Fill(bias, -1, 1);
  std::vector<double> init(64), brow(64);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      init[i * 8 + j] = cin.At(i, j);
      brow[i * 8 + j] = bias.At(0, j);
    }
  TMATMUL_ACC(cout, cin, a, b);
  ExpectProduct(cout, a, b, 8, 8, 8, init, 1e-6);
  TMATMUL_BIAS(cout, a, b, bias);
  ExpectProduct(cout, a, b, 8, 8, 8, brow, 1e-6);
}

class Faults : public IsaTest {};

TEST_F(Faults, TileBeyondCapacityIsRecordedNotCrashed) {
  Tile<TileType::Vec, float, 64, 64> t;  // 16 KiB
  PYPTO_LOC(17);
  TASSIGN(t, kCapacity - 8 * 1024);
  ASSERT_TRUE(core_.faulted());
  EXPECT_EQ(core_.fault.kind, FaultKind::OutOfCapacity);
  EXPECT_STREQ(core_.fault.instruction, "TASSIGN");
  EXPECT_EQ(core_.fault.line, 17u);
  EXPECT_EQ(core_.fault.space, TileType::Vec);
  EXPECT_EQ(core_.fault.value, static_cast<int64_t>(kCapacity + 8 * 1024));
  EXPECT_EQ(core_.fault.limit, static_cast<int64_t>(kCapacity));
  // Using the tile faults again (counted) and writes nothing.
  Tile<TileType::Vec, float, 64, 64> ok;
  TASSIGN(ok, 0);
  PYPTO_LOC(18);
  TADD(t, ok, ok);
  EXPECT_EQ(core_.fault_count, 2u);
  EXPECT_EQ(core_.fault.line, 17u);  // the first fault is kept
}

TEST_F(Faults, CapacityIsPerSpaceAndSetAtRunTime) {
  core_.capacity[static_cast<int>(TileType::Left)] = 1024;
  TileLeft<half, 16, 32> fits;  // 1 KiB
  TASSIGN(fits, 0);
  EXPECT_FALSE(core_.faulted());
  TileLeft<half, 16, 33> big;
  PYPTO_LOC(3);
  TASSIGN(big, 0);
  ASSERT_TRUE(core_.faulted());
  EXPECT_EQ(core_.fault.space, TileType::Left);
}

TEST_F(Faults, MisalignedAndUnassigned) {
  Tile<TileType::Vec, float, 8, 8> t;
  PYPTO_LOC(5);
  TASSIGN(t, 4);
  EXPECT_EQ(core_.fault.kind, FaultKind::Misaligned);
  core_.Clear();
  Tile<TileType::Vec, float, 8, 8> never;
  Tile<TileType::Vec, float, 8, 8> dst;
  Place(dst);
  PYPTO_LOC(9);
  TEXP(dst, never);
  EXPECT_EQ(core_.fault.kind, FaultKind::Unassigned);
  EXPECT_STREQ(core_.fault.instruction, "TEXP");
  EXPECT_EQ(core_.fault.line, 9u);
}

TEST_F(Faults, ValidShapeAndOperandMismatch) {
  Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC> dyn(9, 8);
  Place(dyn);
  Tile<TileType::Vec, float, 8, 8> full;
  Place(full);
  for (int i = 0; i < 64; ++i) full.data()[i] = 1.0f;
  PYPTO_LOC(11);
  TADDS(dyn, full, 1.0f);
  EXPECT_EQ(core_.fault.kind, FaultKind::ValidShape);
  EXPECT_EQ(core_.fault.value, 9);
  core_.Clear();
  Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor, 4, 8> small;
  Place(small);
  PYPTO_LOC(12);
  TADD(full, small, full);
  EXPECT_EQ(core_.fault.kind, FaultKind::ShapeMismatch);
  EXPECT_STREQ(core_.fault.instruction, "TADD");
  EXPECT_EQ(full.data()[0], 1.0f);  // nothing written
  core_.Clear();
  Tile<TileType::Vec, float, 8, 8> ex;
  Place(ex);
  PYPTO_LOC(13);
  TEXTRACT(ex, full, 1, 0);
  EXPECT_EQ(core_.fault.kind, FaultKind::ShapeMismatch);
  EXPECT_STREQ(core_.fault.instruction, "TEXTRACT");
}

TEST_F(Faults, WindowOutsideTheGlobalTensor) {
  float data[4 * 4] = {};
  GlobalTensor<float, Shape<1, 1, 1, 4, 4>, Stride<16, 16, 16, 4, 1>> g(data);
  Tile<TileType::Vec, float, 8, 4> t;
  Place(t);
  PYPTO_LOC(21);
  TLOAD(t, g);
  EXPECT_EQ(core_.fault.kind, FaultKind::GlobalOutOfBounds);
  EXPECT_EQ(core_.fault.value, 8);
  EXPECT_EQ(core_.fault.limit, 4);
  core_.Clear();
  PYPTO_LOC(22);
  TSTORE(g, t);
  EXPECT_STREQ(core_.fault.instruction, "TSTORE");
}

TEST_F(Faults, MatmulKMismatch) {
  TileLeft<float, 8, 16> a;
  TileRight<float, 16, 8, 8, 8> b;  // only 8 valid rows for K = 16
  TileAcc<float, 8, 8> c;
  Place(a);
  Place(b);
  Place(c);
  PYPTO_LOC(30);
  TMATMUL(c, a, b);
  EXPECT_EQ(core_.fault.kind, FaultKind::ShapeMismatch);
  EXPECT_EQ(core_.fault.line, 30u);
}

}  // namespace
}  // namespace pypto::isa_test
