// Remainders, bitwise ops, products, arg reductions, leaky ReLU, sin/cos.
#include <cmath>
#include <cstdint>

#include "isa_test_util.h"

namespace pypto::isa_test {
namespace {

using namespace pto;

class MoreOps : public IsaTest {};

TEST_F(MoreOps, RemainderTakesTheDivisorsSignAndFmodTheDividends) {
  Tile<TileType::Vec, float, 1, 6> a, b, d;
  Tile<TileType::Vec, int32_t, 1, 6> ia, ib, id;
  Place(a);
  Place(b);
  Place(d);
  Place(ia);
  Place(ib);
  Place(id);
  const float av[6] = {5.5f, -5.5f, 5.5f, -5.5f, 3.0f, 1.0f};
  const float bv[6] = {2.0f, 2.0f, -2.0f, -2.0f, 0.0f, 0.1f};
  const int32_t iav[6] = {7, -7, 7, -7, 7, INT32_MIN};
  const int32_t ibv[6] = {3, 3, -3, -3, 0, -1};
  std::memcpy(a.data(), av, sizeof av);
  std::memcpy(b.data(), bv, sizeof bv);
  std::memcpy(ia.data(), iav, sizeof iav);
  std::memcpy(ib.data(), ibv, sizeof ibv);
  TREM(d, a, b);
  for (int i = 0; i < 4; ++i) {
    double want = std::fmod(av[i], bv[i]);
    if (want != 0 && ((want < 0) != (bv[i] < 0))) want += bv[i];
    EXPECT_FLOAT_EQ(d.data()[i], static_cast<float>(want)) << i;
  }
  EXPECT_TRUE(std::isnan(d.data()[4]));
  EXPECT_FLOAT_EQ(d.data()[5], std::fmod(1.0f, 0.1f));
  TFMOD(d, a, b);
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(d.data()[i], std::fmod(av[i], bv[i])) << i;
  TREM(id, ia, ib);
  const int32_t rem[6] = {1, 2, -2, -1, 0, 0};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(id.data()[i], rem[i]) << i;
  TFMOD(id, ia, ib);
  const int32_t fmod[6] = {1, -1, 1, -1, 0, 0};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(id.data()[i], fmod[i]) << i;
  TREMS(d, a, 2.0f);
  EXPECT_FLOAT_EQ(d.data()[1], 0.5f);
  TFMODS(d, a, 2.0f);
  EXPECT_FLOAT_EQ(d.data()[1], -1.5f);
}

TEST_F(MoreOps, BitwiseAndShifts) {
  Tile<TileType::Vec, int16_t, 1, 4> a, b, d;
  Tile<TileType::Vec, uint8_t, 1, 4> u, ud;
  Place(a);
  Place(b);
  Place(d);
  Place(u);
  Place(ud);
  const int16_t av[4] = {0x0F0F, -8, 1, 0x7FFF};
  const int16_t bv[4] = {0x00FF, 1, 15, 16};
  std::memcpy(a.data(), av, sizeof av);
  std::memcpy(b.data(), bv, sizeof bv);
  TAND(d, a, b);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(d.data()[i], static_cast<int16_t>(av[i] & bv[i]));
  TOR(d, a, b);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(d.data()[i], static_cast<int16_t>(av[i] | bv[i]));
  TXOR(d, a, b);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(d.data()[i], static_cast<int16_t>(av[i] ^ bv[i]));
  TNOT(d, a);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(d.data()[i], static_cast<int16_t>(~av[i]));
  TSHL(d, a, b);
  EXPECT_EQ(d.data()[1], -16);
  EXPECT_EQ(d.data()[2], INT16_MIN);
  EXPECT_EQ(d.data()[3], 0);  // a count of 16 shifts everything out
  TSHR(d, a, b);
  EXPECT_EQ(d.data()[1], -4);  // arithmetic for signed types
  EXPECT_EQ(d.data()[3], 0);
  TSHRS(d, a, 20);
  EXPECT_EQ(d.data()[1], -1);
  for (int i = 0; i < 4; ++i) u.data()[i] = static_cast<uint8_t>(0xF0 + i);
  TSHRS(ud, u, 4);
  EXPECT_EQ(ud.data()[2], 0x0F);
  TANDS(ud, u, 0x3C);
  EXPECT_EQ(ud.data()[3], 0x30);
  TORS(ud, u, 0x01);
  EXPECT_EQ(ud.data()[0], 0xF1);
  TXORS(ud, u, 0xFF);
  EXPECT_EQ(ud.data()[1], 0x0E);
  TXORS(ud, u, 0x0F, d);  // the registry's tile.xors carries a scratch tile; it is unused
  EXPECT_EQ(ud.data()[1], 0xFE);
  TSHLS(ud, u, 1);
  EXPECT_EQ(ud.data()[1], 0xE2);
}

TEST_F(MoreOps, ProductsAndArgReductions) {
  using Src = Tile<TileType::Vec, float, 4, 24, BLayout::RowMajor, 3, 20>;
  Src a;
  Place(a);
  Fill(a, 0.5, 1.5);
  a.At(1, 17) = 9.0f;   // row 1 max, in the tail after 16 lanes
  a.At(1, 18) = 9.0f;   // a later equal maximum: the first index wins
  a.At(2, 4) = 0.01f;   // row 2 min
  a.At(0, 21) = 100.0f; // outside the valid region
  Tile<TileType::Vec, float, 4, 1, BLayout::ColMajor> prod;
  Tile<TileType::Vec, int32_t, 4, 1, BLayout::ColMajor> amax, amin;
  Tile<TileType::Vec, int32_t, 1, 24> cmax;
  Tile<TileType::Vec, float, 1, 24> cprod;
  Place(prod);
  Place(amax);
  Place(amin);
  Place(cmax);
  Place(cprod);
  TROWPROD(prod, a);
  TROWARGMAX(amax, a);
  TROWARGMIN(amin, a);
  TCOLARGMAX(cmax, a);
  TCOLPROD(cprod, a);
  for (int r = 0; r < 3; ++r) {
    double p = 1;
    int hi = 0, lo = 0;
    for (int c = 0; c < 20; ++c) {
      p *= a.At(r, c);
      if (a.At(r, c) > a.At(r, hi)) hi = c;
      if (a.At(r, c) < a.At(r, lo)) lo = c;
    }
    EXPECT_NEAR(prod.At(r, 0), p, 1e-5 * std::fabs(p)) << r;
    EXPECT_EQ(amax.At(r, 0), hi) << r;
    EXPECT_EQ(amin.At(r, 0), lo) << r;
  }
  EXPECT_EQ(amax.At(1, 0), 17);
  EXPECT_EQ(amin.At(2, 0), 4);
  for (int c = 0; c < 20; ++c) {
    int hi = 0;
    double p = 1;
    for (int r = 0; r < 3; ++r) {
      if (a.At(r, c) > a.At(hi, c)) hi = r;
      p *= a.At(r, c);
    }
    EXPECT_EQ(cmax.At(0, c), hi) << c;
    EXPECT_NEAR(cprod.At(0, c), p, 1e-6 * std::fabs(p)) << c;
  }
  a.At(0, 5) = NAN;
  TROWARGMAX(amax, a);
  TROWARGMIN(amin, a);
  EXPECT_EQ(amax.At(0, 0), 5);
  EXPECT_EQ(amin.At(0, 0), 5);
}

TEST_F(MoreOps, ColumnReductionsRunInPlace) {
  // The registry lets col_max/min/prod write into their source's first row.
  Tile<TileType::Vec, int32_t, 3, 4> src;
  Place(src);
  const int32_t values[12] = {2, -1, 5, 7, 3, 4, -6, 1, 5, 2, 2, -2};
  std::memcpy(src.data(), values, sizeof values);
  Tile<TileType::Vec, int32_t, 1, 4> dst;
  TASSIGN(dst, static_cast<uint64_t>(reinterpret_cast<uint8_t*>(src.data()) -
                                     reinterpret_cast<uint8_t*>(core_.buffer[static_cast<int>(TileType::Vec)])));
  TCOLPROD(dst, src);
  const int32_t prod[4] = {30, -8, -60, -14};
  for (int c = 0; c < 4; ++c) EXPECT_EQ(dst.data()[c], prod[c]) << c;
  std::memcpy(src.data(), values, sizeof values);
  TCOLMAX(dst, src);
  const int32_t max[4] = {5, 4, 5, 7};
  for (int c = 0; c < 4; ++c) EXPECT_EQ(dst.data()[c], max[c]) << c;
}

TEST_F(MoreOps, LeakyRelu) {
  Tile<TileType::Vec, float, 2, 16> a, d;
  Place(a);
  Place(d);
  Fill(a, -3, 3);
  TLRELU(d, a, 0.25f);
  for (int i = 0; i < 32; ++i) EXPECT_FLOAT_EQ(d.data()[i], a.data()[i] > 0 ? a.data()[i] : 0.25f * a.data()[i]);
}

}  // namespace
}  // namespace pypto::isa_test
