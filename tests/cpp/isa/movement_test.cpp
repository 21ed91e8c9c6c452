// TLOAD/TSTORE through global tensors, tile-to-tile moves, and conversions.
#include <cmath>
#include <limits>

#include "isa_test_util.h"

namespace pypto::isa_test {
namespace {

using namespace pto;

class Movement : public IsaTest {};

TEST_F(Movement, LoadAndStoreAStridedWindow) {
  // A 10 x 12 window of a 20 x 30 row-major matrix starting at (3, 4).
  std::vector<float> src(20 * 30), dst(20 * 30, -1.0f);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i);
  using GT = GlobalTensor<float, Shape<1, 1, 1, 10, 12>, Stride<1, 1, 1, 30, 1>, Layout::ND>;
  GT in(src.data() + 3 * 30 + 4);
  GT out(dst.data() + 3 * 30 + 4);
  Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, 10, 12, SLayout::NoneBox, 512, PadValue::Zero> t;
  Place(t);
  TLOAD(t, in);
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 16; ++c) {
      float want = (r < 10 && c < 12) ? src[(3 + r) * 30 + 4 + c] : 0.0f;
      EXPECT_EQ(t.At(r, c), want) << r << "," << c;
    }
  }
  TSTORE(out, t);
  for (int r = 0; r < 20; ++r) {
    for (int c = 0; c < 30; ++c) {
      bool inside = r >= 3 && r < 13 && c >= 4 && c < 16;
      EXPECT_EQ(dst[r * 30 + c], inside ? src[r * 30 + c] : -1.0f) << r << "," << c;
    }
  }
  EXPECT_FALSE(core_.faulted());
}

TEST_F(Movement, DynamicShapesAndLeadingDimsFlattenIntoRows) {
  // A [2, 3, 5] tensor with a padded middle stride seen as 6 rows of 5.
  std::vector<int32_t> src(2 * 4 * 8, -1);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 5; ++k) src[i * 32 + j * 8 + k] = i * 100 + j * 10 + k;
  using GT = GlobalTensor<int32_t, Shape<1, 1, DYNAMIC, 3, DYNAMIC>, Stride<64, 64, 32, 8, 1>>;
  GT g(src.data(), GT::Shape(2, 5));
  EXPECT_EQ(g.Rows(), 6);
  EXPECT_EQ(g.Cols(), 5);
  Tile<TileType::Vec, int32_t, 8, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC> t(6, 5);
  Place(t);
  TLOAD(t, g);
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 5; ++c) EXPECT_EQ(t.At(r, c), (r / 3) * 100 + (r % 3) * 10 + c) << r << "," << c;
}

TEST_F(Movement, ColumnMajorGlobalTensorsAndTiles) {
  // [4, 1] DN tensor: consecutive rows are consecutive elements (row stride 1).
  float col[4] = {1, 2, 3, 4};
  GlobalTensor<float, Shape<1, 1, 1, 4, 1>, Stride<4, 4, 4, 1, 4>, Layout::DN> g(col);
  Tile<TileType::Vec, float, 4, 1, BLayout::ColMajor> t;
  Place(t);
  TLOAD(t, g);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(t.At(r, 0), col[r]);
  // A [3, 2] DN matrix is stored column by column: row stride 1, column stride 3.
  float m[6] = {1, 2, 3, 4, 5, 6};
  GlobalTensor<float, Shape<1, 1, 1, 3, 2>, Stride<6, 6, 6, 1, 3>, Layout::DN> gm(m);
  Tile<TileType::Vec, float, 3, 2> tm;
  Place(tm);
  TLOAD(tm, gm);
  EXPECT_EQ(tm.At(0, 1), 4.0f);
  EXPECT_EQ(tm.At(2, 0), 3.0f);
}

TEST_F(Movement, StoreConvertsTheAccumulatorToTheTensorsDtype) {
  TileAcc<float, 2, 2> acc;
  Place(acc);
  acc.At(0, 0) = 1.0f / 3.0f;
  acc.At(0, 1) = 65520.0f;
  acc.At(1, 0) = -2.5f;
  acc.At(1, 1) = 1e-8f;
  half out[4];
  GlobalTensor<half, Shape<1, 1, 1, 2, 2>, Stride<4, 4, 4, 2, 1>> g(out);
  TSTORE(g, acc);
  EXPECT_EQ(out[0].bits, 0x3555);
  EXPECT_EQ(out[1].bits, 0x7C00);  // 65520 rounds to inf
  EXPECT_EQ(out[2].bits, 0xC100);
  EXPECT_EQ(out[3].bits, 0x0000);
}

TEST_F(Movement, MoveExtractTransposeFillpad) {
  Tile<TileType::Vec, float, 8, 8> a;
  Place(a);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) a.At(r, c) = static_cast<float>(r * 8 + c);
  Tile<TileType::Mat, float, 8, 8, BLayout::ColMajor, 8, 8, SLayout::RowMajor, 512> mat;
  Place(mat);
  TMOV(mat, a);
  TileLeft<float, 4, 4> left;
  Place(left);
  TEXTRACT(left, mat, 2, 3);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_EQ(left.At(r, c), a.At(2 + r, 3 + c));
  Tile<TileType::Vec, float, 8, 8> t;
  Place(t);
  TTRANS(t, a);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) EXPECT_EQ(t.At(r, c), a.At(c, r));
  Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC> part(3, 2);
  Place(part);
  TMOV(part, a);
  Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor, 8, 8, SLayout::NoneBox, 512, PadValue::Min> filled;
  Place(filled);
  TFILLPAD(filled, part);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) EXPECT_EQ(filled.At(r, c), (r < 3 && c < 2) ? a.At(r, c) : -INFINITY);
  EXPECT_FALSE(core_.faulted());
}

TEST_F(Movement, ConcatJoinsValidColumns) {
  Tile<TileType::Vec, float, 4, 8, BLayout::RowMajor, 3, 2> a;
  Tile<TileType::Vec, float, 4, 8, BLayout::RowMajor, 3, 5> b;
  Tile<TileType::Vec, float, 4, 8, BLayout::RowMajor, 3, 7, SLayout::NoneBox, 512, PadValue::Zero> d;
  Tile<TileType::Vec, float, 4, 8, BLayout::RowMajor, 3, 8> wrong;
  Place(a);
  Place(b);
  Place(d);
  Place(wrong);
  Fill(a, -1, 1);
  Fill(b, -1, 1);
  TCONCAT(d, a, b);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) {
      float want = r >= 3 || c >= 7 ? 0.0f : c < 2 ? a.At(r, c) : b.At(r, c - 2);
      EXPECT_EQ(d.At(r, c), want) << r << "," << c;
    }
  EXPECT_FALSE(core_.faulted());
  PYPTO_LOC(4);
  TCONCAT(wrong, a, b);
  EXPECT_EQ(core_.fault.kind, FaultKind::ShapeMismatch);
}

TEST_F(Movement, CastToIntegerByRoundingMode) {
  const float in[8] = {2.5f, -2.5f, 3.5f, 1.2f, -1.7f, 0.0f, 1e20f, NAN};
  Tile<TileType::Vec, float, 1, 8> src;
  Tile<TileType::Vec, int32_t, 1, 8> dst;
  Place(src);
  Place(dst);
  std::memcpy(src.data(), in, sizeof in);
  const int32_t big = std::numeric_limits<int32_t>::max();
  struct Case {
    RoundMode mode;
    int32_t want[8];
  };
  const Case cases[] = {
      {RoundMode::CAST_NONE, {2, -2, 3, 1, -1, 0, big, 0}},  {RoundMode::CAST_RINT, {2, -2, 4, 1, -2, 0, big, 0}},
      {RoundMode::CAST_ROUND, {3, -3, 4, 1, -2, 0, big, 0}}, {RoundMode::CAST_FLOOR, {2, -3, 3, 1, -2, 0, big, 0}},
      {RoundMode::CAST_CEIL, {3, -2, 4, 2, -1, 0, big, 0}},  {RoundMode::CAST_TRUNC, {2, -2, 3, 1, -1, 0, big, 0}},
      {RoundMode::CAST_ODD, {3, -3, 3, 1, -2, 0, big, 0}},
  };
  for (const Case& k : cases) {
    TCVT(dst, src, k.mode);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(dst.data()[i], k.want[i]) << static_cast<int>(k.mode) << " " << in[i];
  }
  Tile<TileType::Vec, int8_t, 1, 8> narrow;
  Place(narrow);
  TCVT(narrow, src, RoundMode::CAST_TRUNC);
  EXPECT_EQ(narrow.data()[6], 127);
  TCVT(dst, narrow);
  EXPECT_EQ(dst.data()[6], 127);
}

TEST_F(Movement, CastToHalfByRoundingMode) {
  // 1 + 2^-11 lies halfway between 1 and the next half, 1 + 2^-10.
  const float in[4] = {1.0f + 0x1p-11f, -(1.0f + 0x1p-11f), 1.0f + 0x1p-12f, 70000.0f};
  Tile<TileType::Vec, float, 1, 4> src;
  Tile<TileType::Vec, half, 1, 4> dst;
  Place(src);
  Place(dst);
  std::memcpy(src.data(), in, sizeof in);
  struct Case {
    RoundMode mode;
    uint16_t want[4];
  };
  const Case cases[] = {
      {RoundMode::CAST_RINT, {0x3C00, 0xBC00, 0x3C00, 0x7C00}},
      {RoundMode::CAST_ROUND, {0x3C01, 0xBC01, 0x3C00, 0x7C00}},
      {RoundMode::CAST_FLOOR, {0x3C00, 0xBC01, 0x3C00, 0x7BFF}},
      {RoundMode::CAST_CEIL, {0x3C01, 0xBC00, 0x3C01, 0x7C00}},
      {RoundMode::CAST_TRUNC, {0x3C00, 0xBC00, 0x3C00, 0x7BFF}},
      {RoundMode::CAST_ODD, {0x3C01, 0xBC01, 0x3C01, 0x7BFF}},
  };
  for (const Case& k : cases) {
    TCVT(dst, src, k.mode);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(dst.data()[i].bits, k.want[i]) << static_cast<int>(k.mode) << " " << i;
  }
  Tile<TileType::Vec, bfloat16, 1, 4> b;
  Place(b);
  TCVT(b, src, RoundMode::CAST_FLOOR);
  EXPECT_EQ(b.data()[0].bits, 0x3F80);
  EXPECT_EQ(b.data()[1].bits, 0xBF81);
  Tile<TileType::Vec, bool, 1, 4> flags;
  Place(flags);
  TCVT(flags, src);
  EXPECT_TRUE(flags.data()[0]);
}

TEST_F(Movement, HalfAndBf16KnownBitPatterns) {
  struct Case {
    uint32_t f;
    uint16_t h;
    uint16_t b;
  };
  const Case cases[] = {
      {0x3F800000, 0x3C00, 0x3F80},  // 1
      {0x477FE000, 0x7BFF, 0x4780},  // 65504 (max half)
      {0x477FF000, 0x7C00, 0x4780},  // 65520 -> inf in half
      {0x38800000, 0x0400, 0x3880},  // 2^-14 (min normal half)
      {0x33800000, 0x0001, 0x3380},  // 2^-24 (min subnormal half)
      {0x33000000, 0x0000, 0x3300},  // 2^-25: tie, to even (0)
      {0x33000001, 0x0001, 0x3300},  // just above 2^-25
      {0x7F800000, 0x7C00, 0x7F80},  // inf
      {0xFF800000, 0xFC00, 0xFF80},  // -inf
      {0x80000000, 0x8000, 0x8000},  // -0
      {0x3F808000, 0x3C04, 0x3F80},  // bf16 tie to even (down)
      {0x3F818000, 0x3C0C, 0x3F82},  // bf16 tie to even (up)
      {0x7F7FFFFF, 0x7C00, 0x7F80},  // max float rounds to inf in bf16
  };
  for (const Case& k : cases) {
    float f = BitsFloat(k.f);
    EXPECT_EQ(half(f).bits, k.h) << std::hex << k.f;
    EXPECT_EQ(bfloat16(f).bits, k.b) << std::hex << k.f;
  }
  // Every finite half converts to float and back unchanged.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) == 0x7C00) continue;
    half x = half::FromBits(static_cast<uint16_t>(h));
    EXPECT_EQ(half(static_cast<float>(x)).bits, h);
  }
  EXPECT_TRUE(std::isnan(static_cast<float>(half::FromBits(0x7E00))));
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16(NAN))));
}

}  // namespace
}  // namespace pypto::isa_test
