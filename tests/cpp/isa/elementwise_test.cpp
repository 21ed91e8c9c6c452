// Element-wise, compare/select, reduction and broadcast instructions against
// straightforward double-precision references, on full and partial valid regions.
#include <cmath>
#include <functional>

#include "isa_test_util.h"

PYPTO_ISA_DEFINE_CURRENT_CORE()

namespace pypto::isa_test {
namespace {

using namespace pto;
using F = Tile<TileType::Vec, float, 16, 32>;

class Elementwise : public IsaTest {
 protected:
  // TEXP of one value, alone in its tile (a row's partial last group).
  float ExpOfOne(float v) {
    Tile<TileType::Vec, float, 1, 1> one;
    Place(one);
    one.At(0, 0) = v;
    TEXP(one, one);
    return one.At(0, 0);
  }
};

double Rel(double got, double want) { return std::fabs(got - want) / std::max(1.0, std::fabs(want)); }

template <typename TileT>
void ExpectUnary(const TileT& dst, const TileT& src, const std::function<double(double)>& ref, double tol) {
  for (int r = 0; r < TileT::kRows; ++r) {
    for (int c = 0; c < TileT::kCols; ++c) {
      double want = ref(static_cast<double>(static_cast<float>(src.At(r, c))));
      double got = static_cast<float>(dst.At(r, c));
      EXPECT_LE(Rel(got, want), tol) << "at " << r << "," << c << " src " << static_cast<float>(src.At(r, c));
    }
  }
}

TEST_F(Elementwise, BinaryOpsMatchDoubleReference) {
  F a, b, d;
  Place(a);
  Place(b);
  Place(d);
  Fill(a, -4, 4);
  Fill(b, 0.5, 3);
  struct Case {
    void (*op)(F&, const F&, const F&);
    std::function<double(double, double)> ref;
  };
  Case cases[] = {
      {TADD<F, F, F>, [](double x, double y) { return x + y; }},
      {TSUB<F, F, F>, [](double x, double y) { return x - y; }},
      {TMUL<F, F, F>, [](double x, double y) { return x * y; }},
      {TDIV<F, F, F>, [](double x, double y) { return x / y; }},
      {TMAX<F, F, F>, [](double x, double y) { return std::max(x, y); }},
      {TMIN<F, F, F>, [](double x, double y) { return std::min(x, y); }},
  };
  for (const Case& k : cases) {
    k.op(d, a, b);
    for (int i = 0; i < F::kSize; ++i) {
      EXPECT_LE(Rel(d.data()[i], k.ref(a.data()[i], b.data()[i])), 1e-6) << i;
    }
  }
  EXPECT_FALSE(core_.faulted());
}

// The memory planner puts a result where a dying operand was: the vectorized
// loops must give what an element-by-element loop gives with dst == src,
// also over a valid width that leaves a tail of odd length.
TEST_F(Elementwise, InPlaceOperandsGiveTheOutOfPlaceResult) {
  using W = Tile<TileType::Vec, float, 4, 40, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  W x, y;
  Place(x);
  Place(y);
  Fill(x, -3, 3);
  Fill(y, 0.5, 2);
  x.SetValidShape(4, 37);
  y.SetValidShape(4, 37);
  std::vector<float> want(W::kSize);
  for (int i = 0; i < W::kSize; ++i) want[i] = std::exp(x.data()[i] - y.data()[i]) * y.data()[i];
  TSUB(x, x, y);
  TEXP(x, x);
  TMUL(x, y, x);
  ASSERT_FALSE(core_.faulted());
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 37; ++c) EXPECT_LE(Rel(x.At(r, c), want[r * 40 + c]), 2e-6) << r << "," << c;
  }
}

TEST_F(Elementwise, ScalarOpsMatchDoubleReference) {
  F a, d;
  Place(a);
  Place(d);
  Fill(a, -4, 4);
  TADDS(d, a, 1.5f);
  for (int i = 0; i < F::kSize; ++i) EXPECT_FLOAT_EQ(d.data()[i], a.data()[i] + 1.5f);
  TSUBS(d, a, 1.5f);
  for (int i = 0; i < F::kSize; ++i) EXPECT_FLOAT_EQ(d.data()[i], a.data()[i] - 1.5f);
  TMULS(d, a, -2.0f);
  for (int i = 0; i < F::kSize; ++i) EXPECT_FLOAT_EQ(d.data()[i], a.data()[i] * -2.0f);
  TDIVS(d, a, 4.0f);
  for (int i = 0; i < F::kSize; ++i) EXPECT_FLOAT_EQ(d.data()[i], a.data()[i] / 4.0f);
  TMAXS(d, a, 0.5f);
  for (int i = 0; i < F::kSize; ++i) EXPECT_FLOAT_EQ(d.data()[i], std::max(a.data()[i], 0.5f));
  TMINS(d, a, 0.5f);
  for (int i = 0; i < F::kSize; ++i) EXPECT_FLOAT_EQ(d.data()[i], std::min(a.data()[i], 0.5f));
  TEXPANDS(d, 7.0f);
  for (int i = 0; i < F::kSize; ++i) EXPECT_EQ(d.data()[i], 7.0f);
}

TEST_F(Elementwise, UnaryMathMatchesDoubleReference) {
  F pos, any, d;
  Place(pos);
  Place(any);
  Place(d);
  Fill(pos, 0.01, 20);
  Fill(any, -5, 5);
  TEXP(d, any);
  ExpectUnary(d, any, [](double x) { return std::exp(x); }, 1e-6);
  TLOG(d, pos);
  ExpectUnary(d, pos, [](double x) { return std::log(x); }, 1e-6);
  TSQRT(d, pos);
  ExpectUnary(d, pos, [](double x) { return std::sqrt(x); }, 1e-7);
  TRSQRT(d, pos);
  ExpectUnary(d, pos, [](double x) { return 1 / std::sqrt(x); }, 1e-6);
  TRECIP(d, pos);
  ExpectUnary(d, pos, [](double x) { return 1 / x; }, 1e-7);
  TABS(d, any);
  ExpectUnary(d, any, [](double x) { return std::fabs(x); }, 0);
  TNEG(d, any);
  ExpectUnary(d, any, [](double x) { return -x; }, 0);
  TRELU(d, any);
  ExpectUnary(d, any, [](double x) { return x > 0 ? x : 0; }, 0);
}

TEST_F(Elementwise, ExpCoversTheWholeFloatRange) {
  Tile<TileType::Vec, float, 1, 16> x, y;
  Place(x);
  Place(y);
  const float in[16] = {INFINITY, -INFINITY, NAN, 0.0f,   -0.0f, 88.72f, 88.73f, -87.0f,
                        -100.0f,  -103.0f,   -104.0f, 1e-7f, 20.5f, -20.5f, 1.0f,   -1.0f};
  std::memcpy(x.data(), in, sizeof in);
  TEXP(y, x);
  EXPECT_EQ(y.data()[0], INFINITY);
  EXPECT_EQ(y.data()[1], 0.0f);
  EXPECT_TRUE(std::isnan(y.data()[2]));
  EXPECT_EQ(y.data()[3], 1.0f);
  EXPECT_EQ(y.data()[4], 1.0f);
  EXPECT_EQ(y.data()[6], INFINITY);
  EXPECT_EQ(y.data()[10], 0.0f);
  for (int i : {5, 7, 8, 9, 11, 12, 13, 14, 15}) {
    double want = std::exp(static_cast<double>(in[i]));
    // Within 1 ulp of the exact value; subnormal results within one subnormal step.
    double ulp = std::max(std::ldexp(1.0, -149), std::ldexp(1.0, std::ilogb(want) - 23));
    EXPECT_LE(std::fabs(y.data()[i] - want), ulp) << in[i];
  }
}

// FP32 rows go 16 lanes at a time and a row's last partial group through a
// padded vector: a value must come out the same wherever it sits, in place
// or not, and a partial valid region must leave the rest alone.
TEST_F(Elementwise, ExpGivesOneResultPerValueWhereverItSitsInTheRow) {
  Tile<TileType::Vec, float, 3, 37> x, y;
  Place(x);
  Place(y);
  const float specials[] = {INFINITY, -INFINITY, 0.0f, 88.72f, 88.73f, -100.0f, -104.0f, 20.5f, -1.0f};
  const int count = sizeof specials / sizeof specials[0];
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 37; ++c) x.At(r, c) = specials[(r * 37 + c) % count];
  }
  TEXP(y, x);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 37; ++c) {
      float want = ExpOfOne(x.At(r, c));
      EXPECT_EQ(std::memcmp(&y.At(r, c), &want, sizeof want), 0) << r << "," << c << " exp(" << x.At(r, c) << ")";
    }
  }
  TEXP(x, x);  // in place
  EXPECT_EQ(std::memcmp(x.data(), y.data(), sizeof(float) * 3 * 37), 0);

  Tile<TileType::Vec, float, 3, 37, BLayout::RowMajor, DYNAMIC, DYNAMIC> part(2, 21);
  Place(part);
  for (int i = 0; i < 3 * 37; ++i) part.data()[i] = -1.0f;
  TEXP(part, part);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 37; ++c) {
      EXPECT_EQ(part.At(r, c), r < 2 && c < 21 ? ExpOfOne(-1.0f) : -1.0f) << r << "," << c;
    }
  }
  EXPECT_FALSE(core_.faulted());
}

// TROWEXPANDEXPDIF is TROWEXPANDSUB then TEXP in one pass: the same floats.
TEST_F(Elementwise, RowExpandExpDifIsSubtractThenExp) {
  Tile<TileType::Vec, float, 5, 37> x, fused, sub, two_step;
  Tile<TileType::Vec, float, 5, 1, BLayout::ColMajor> m;
  Place(x);
  Place(fused);
  Place(sub);
  Place(two_step);
  Place(m);
  Fill(x, -30, 30);
  TROWMAX(m, x);
  TROWEXPANDEXPDIF(fused, x, m);
  TROWEXPANDSUB(sub, x, m);
  TEXP(two_step, sub);
  EXPECT_EQ(std::memcmp(fused.data(), two_step.data(), sizeof(float) * 5 * 37), 0);
  TROWEXPANDEXPDIF(x, x, m);  // in place
  EXPECT_EQ(std::memcmp(x.data(), two_step.data(), sizeof(float) * 5 * 37), 0);
  EXPECT_FALSE(core_.faulted());
}

// Rows are reduced four at a time, the rest one by one; every row must get
// exactly what it gets reduced alone.
TEST_F(Elementwise, RowReductionsGiveEachRowWhatItGetsAlone) {
  Tile<TileType::Vec, float, 7, 45> a;
  Tile<TileType::Vec, float, 7, 1, BLayout::ColMajor> sum, mx;
  Tile<TileType::Vec, float, 1, 45> row;
  Tile<TileType::Vec, float, 1, 1> row_sum, row_max;
  Place(a);
  Place(sum);
  Place(mx);
  Place(row);
  Place(row_sum);
  Place(row_max);
  Fill(a, -3, 3);
  TROWSUM(sum, a);
  TROWMAX(mx, a);
  for (int r = 0; r < 7; ++r) {
    for (int c = 0; c < 45; ++c) row.At(0, c) = a.At(r, c);
    TROWSUM(row_sum, row);
    TROWMAX(row_max, row);
    EXPECT_EQ(std::memcmp(&sum.At(r, 0), &row_sum.At(0, 0), sizeof(float)), 0) << r;
    EXPECT_EQ(mx.At(r, 0), row_max.At(0, 0)) << r;
  }
  EXPECT_FALSE(core_.faulted());
}

TEST_F(Elementwise, HalfAndBf16ComputeInFloatAndRoundOnce) {
  Tile<TileType::Vec, half, 8, 16> a, b, d;
  Place(a);
  Place(b);
  Place(d);
  Fill(a, -3, 3);
  Fill(b, -3, 3);
  TMUL(d, a, b);
  for (int i = 0; i < 8 * 16; ++i) {
    EXPECT_EQ(d.data()[i].bits, half(static_cast<float>(a.data()[i]) * static_cast<float>(b.data()[i])).bits) << i;
  }
  Tile<TileType::Vec, bfloat16, 8, 16> x, y;
  Place(x);
  Place(y);
  Fill(x, -3, 3);
  TEXP(y, x);
  for (int i = 0; i < 8 * 16; ++i) {
    EXPECT_EQ(y.data()[i].bits, bfloat16(std::exp(static_cast<float>(x.data()[i]))).bits) << i;
  }
}

TEST_F(Elementwise, IntegerOpsWrapAndDivisionNeverTraps) {
  Tile<TileType::Vec, int32_t, 1, 8> a, b, d;
  Place(a);
  Place(b);
  Place(d);
  int32_t av[8] = {7, -7, 5, INT32_MIN, 0, 100, -9, 3};
  int32_t bv[8] = {2, 2, 0, -1, 3, -7, 4, 3};
  std::memcpy(a.data(), av, sizeof av);
  std::memcpy(b.data(), bv, sizeof bv);
  TDIV(d, a, b);
  int32_t want[8] = {3, -3, 0, INT32_MIN, 0, -14, -2, 1};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(d.data()[i], want[i]) << i;
  TABS(d, b);
  EXPECT_EQ(d.data()[3], 1);
  TRELU(d, a);
  EXPECT_EQ(d.data()[1], 0);
  EXPECT_EQ(d.data()[0], 7);
}

TEST_F(Elementwise, OnlyTheValidRegionIsWrittenAndPadFillsTheRest) {
  using Src = Tile<TileType::Vec, float, 8, 16>;
  using Dyn = Tile<TileType::Vec, float, 8, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC, SLayout::NoneBox, 512,
                   PadValue::Null>;
  using DynMax = Tile<TileType::Vec, float, 8, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC, SLayout::NoneBox, 512,
                      PadValue::Max>;
  Src a;
  Place(a);
  Fill(a, -1, 1);
  Dyn plain(3, 5);
  Place(plain);
  for (int i = 0; i < 8 * 16; ++i) plain.data()[i] = 42.0f;
  TADDS(plain, a, 1.0f);
  DynMax padded(3, 5);
  Place(padded);
  TADDS(padded, a, 1.0f);
  for (int r = 0; r < 8; ++r) {
    for (int c = 0; c < 16; ++c) {
      bool valid = r < 3 && c < 5;
      EXPECT_EQ(plain.At(r, c), valid ? a.At(r, c) + 1.0f : 42.0f) << r << "," << c;
      EXPECT_EQ(padded.At(r, c), valid ? a.At(r, c) + 1.0f : INFINITY) << r << "," << c;
    }
  }
  Tile<TileType::Vec, int16_t, 4, 4, BLayout::RowMajor, 2, 2, SLayout::NoneBox, 512, PadValue::Min> ints;
  Place(ints);
  TEXPANDS(ints, 3);
  EXPECT_EQ(ints.At(1, 1), 3);
  EXPECT_EQ(ints.At(1, 2), INT16_MIN);
  EXPECT_EQ(ints.At(3, 0), INT16_MIN);
}

TEST_F(Elementwise, ColMajorTilesUseTheirLayout) {
  using C = Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor>;
  C a, d;
  Place(a);
  Place(d);
  for (int r = 0; r < 8; ++r) a.At(r, 0) = static_cast<float>(r);
  TMULS(d, a, 2.0f);
  for (int r = 0; r < 8; ++r) EXPECT_EQ(d.data()[r], 2.0f * r);
}

// TCMP / TCMPS pack one bit per element (bit c % 8 of byte c / 8 of the row)
// into a uint8_t mask and clear every other byte; TSEL reads that packing.
TEST_F(Elementwise, CompareAndSelectThroughAPackedMask) {
  F a, b, d;
  Tile<TileType::Vec, uint8_t, 16, 32> m;
  Place(a);
  Place(b);
  Place(d);
  Place(m);
  Fill(a, -1, 1);
  Fill(b, -1, 1);
  a.data()[0] = b.data()[0];
  auto bit = [&](int r, int c) { return ((m.At(r, c / 8) >> (c % 8)) & 1) != 0; };
  auto expect_packed = [&](const std::function<bool(int, int)>& ref, int k) {
    for (int r = 0; r < 16; ++r) {
      for (int c = 0; c < 32; ++c) EXPECT_EQ(bit(r, c), ref(r, c)) << k << " " << r << " " << c;
      for (int byte = 4; byte < 32; ++byte) EXPECT_EQ(m.At(r, byte), 0) << k << " " << r << " " << byte;
    }
  };
  const CmpMode modes[] = {CmpMode::EQ, CmpMode::NE, CmpMode::LT, CmpMode::LE, CmpMode::GT, CmpMode::GE};
  const std::function<bool(float, float)> refs[] = {
      std::equal_to<float>(), std::not_equal_to<float>(), std::less<float>(),
      std::less_equal<float>(), std::greater<float>(), std::greater_equal<float>()};
  for (int k = 0; k < 6; ++k) {
    for (int i = 0; i < 16 * 32; ++i) m.data()[i] = 0xA5;  // TCMP must clear what it does not set
    TCMP(m, a, b, modes[k]);
    expect_packed([&](int r, int c) { return refs[k](a.At(r, c), b.At(r, c)); }, k);
    TCMPS(m, a, 0.25f, modes[k]);
    expect_packed([&](int r, int c) { return refs[k](a.At(r, c), 0.25f); }, k);
  }
  TCMP(m, a, b, CmpMode::GT);
  TSEL(d, m, a, b);
  for (int i = 0; i < F::kSize; ++i) EXPECT_EQ(d.data()[i], std::max(a.data()[i], b.data()[i])) << i;
}

TEST_F(Elementwise, APackedMaskOfARaggedTileHoldsOnlyItsValidColumns) {
  using Ragged = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 5, 13>;
  Ragged a, d;
  F b;
  Tile<TileType::Vec, uint8_t, 16, 32, BLayout::RowMajor, 5, 2> m;
  Place(a);
  Place(b);
  Place(d);
  Place(m);
  Fill(a, -1, 1);
  Fill(b, -1, 1);
  TCMPS(m, a, 0.0f, CmpMode::GT);
  for (int r = 0; r < 16; ++r) {
    for (int byte = 0; byte < 32; ++byte) {
      uint8_t expected = 0;
      for (int bit = 0; bit < 8 && r < 5 && byte * 8 + bit < 13; ++bit) {
        expected |= static_cast<uint8_t>((a.At(r, byte * 8 + bit) > 0.0f) << bit);
      }
      EXPECT_EQ(m.At(r, byte), expected) << r << " " << byte;
    }
  }
  TSEL(d, m, a, b);
  for (int r = 0; r < 5; ++r) {
    for (int c = 0; c < 13; ++c) EXPECT_EQ(d.At(r, c), a.At(r, c) > 0.0f ? a.At(r, c) : b.At(r, c)) << r << " " << c;
  }
}

TEST_F(Elementwise, RowAndColumnReductionsOverTheValidRegion) {
  using Src = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 13, 29>;
  Src a;
  Place(a);
  Fill(a, -2, 2);
  for (int i = 0; i < 16 * 32; ++i) {
    if (i / 32 >= 13 || i % 32 >= 29) a.data()[i] = 1e30f;  // outside the valid region: must be ignored
  }
  using RowT = Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor>;
  RowT sum, mx, mn;
  F tmp;
  Place(sum);
  Place(mx);
  Place(mn);
  Place(tmp);
  TROWSUM(sum, a, tmp);
  TROWMAX(mx, a, tmp);
  TROWMIN(mn, a);
  for (int r = 0; r < 13; ++r) {
    double s = 0, hi = -INFINITY, lo = INFINITY;
    for (int c = 0; c < 29; ++c) {
      s += a.At(r, c);
      hi = std::max<double>(hi, a.At(r, c));
      lo = std::min<double>(lo, a.At(r, c));
    }
    EXPECT_NEAR(sum.At(r, 0), s, 1e-5) << r;
    EXPECT_EQ(mx.At(r, 0), hi) << r;
    EXPECT_EQ(mn.At(r, 0), lo) << r;
  }
  Tile<TileType::Vec, float, 1, 32> csum, cmax, cmin;
  Place(csum);
  Place(cmax);
  Place(cmin);
  TCOLSUM(csum, a);
  TCOLMAX(cmax, a, tmp);
  TCOLMIN(cmin, a);
  for (int c = 0; c < 29; ++c) {
    double s = 0, hi = -INFINITY, lo = INFINITY;
    for (int r = 0; r < 13; ++r) {
      s += a.At(r, c);
      hi = std::max<double>(hi, a.At(r, c));
      lo = std::min<double>(lo, a.At(r, c));
    }
    EXPECT_NEAR(csum.At(0, c), s, 1e-5) << c;
    EXPECT_EQ(cmax.At(0, c), hi) << c;
    EXPECT_EQ(cmin.At(0, c), lo) << c;
  }
  EXPECT_FALSE(core_.faulted());
}

TEST_F(Elementwise, RowMaxAndMinPropagateNaNAsTorchDoes) {
  Tile<TileType::Vec, float, 2, 40> a;
  Tile<TileType::Vec, float, 2, 1, BLayout::ColMajor> mx, mn;
  Place(a);
  Place(mx);
  Place(mn);
  Fill(a, -1, 1);
  a.At(0, 3) = NAN;   // inside the vectorized part of the row
  a.At(1, 37) = NAN;  // in the tail
  TROWMAX(mx, a);
  TROWMIN(mn, a);
  for (int r = 0; r < 2; ++r) {
    EXPECT_TRUE(std::isnan(mx.At(r, 0))) << r;
    EXPECT_TRUE(std::isnan(mn.At(r, 0))) << r;
  }
}

TEST_F(Elementwise, HalfRowSumAccumulatesInFloat) {
  Tile<TileType::Vec, half, 1, 64> a;
  Tile<TileType::Vec, half, 1, 1> s;
  Place(a);
  Place(s);
  // 2048 + 64 ones: a half accumulator would stick at 2048.
  a.data()[0] = half(2048.0f);
  for (int c = 1; c < 64; ++c) a.data()[c] = half(1.0f);
  TROWSUM(s, a);
  EXPECT_EQ(static_cast<float>(s.data()[0]), 2112.0f);
}

TEST_F(Elementwise, RowAndColumnBroadcasts) {
  F a, d;
  using RowT = Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor>;
  RowT rv;
  Tile<TileType::Vec, float, 1, 32> cv;
  Place(a);
  Place(d);
  Place(rv);
  Place(cv);
  Fill(a, -2, 2);
  Fill(rv, 0.5, 2);
  Fill(cv, 0.5, 2);
  struct Case {
    void (*row)(F&, const F&, const RowT&);
    void (*col)(F&, const F&, const Tile<TileType::Vec, float, 1, 32>&);
    std::function<double(double, double)> ref;
  };
  using CT = Tile<TileType::Vec, float, 1, 32>;
  Case cases[] = {
      {TROWEXPANDADD<F, F, RowT>, TCOLEXPANDADD<F, F, CT>, [](double x, double v) { return x + v; }},
      {TROWEXPANDSUB<F, F, RowT>, TCOLEXPANDSUB<F, F, CT>, [](double x, double v) { return x - v; }},
      {TROWEXPANDMUL<F, F, RowT>, TCOLEXPANDMUL<F, F, CT>, [](double x, double v) { return x * v; }},
      {TROWEXPANDDIV<F, F, RowT>, TCOLEXPANDDIV<F, F, CT>, [](double x, double v) { return x / v; }},
      {TROWEXPANDMAX<F, F, RowT>, TCOLEXPANDMAX<F, F, CT>, [](double x, double v) { return std::max(x, v); }},
      {TROWEXPANDMIN<F, F, RowT>, TCOLEXPANDMIN<F, F, CT>, [](double x, double v) { return std::min(x, v); }},
      {TROWEXPANDEXPDIF<F, F, RowT>, TCOLEXPANDEXPDIF<F, F, CT>,
       [](double x, double v) { return std::exp(static_cast<double>(static_cast<float>(x - v))); }},
  };
  for (const Case& k : cases) {
    k.row(d, a, rv);
    for (int r = 0; r < 16; ++r) {
      for (int c = 0; c < 32; ++c) EXPECT_LE(Rel(d.At(r, c), k.ref(a.At(r, c), rv.At(r, 0))), 1e-6);
    }
    k.col(d, a, cv);
    for (int r = 0; r < 16; ++r) {
      for (int c = 0; c < 32; ++c) EXPECT_LE(Rel(d.At(r, c), k.ref(a.At(r, c), cv.At(0, c))), 1e-6);
    }
  }
  TROWEXPAND(d, rv);
  for (int r = 0; r < 16; ++r) EXPECT_EQ(d.At(r, 31), rv.At(r, 0));
  TCOLEXPAND(d, cv);
  for (int c = 0; c < 32; ++c) EXPECT_EQ(d.At(15, c), cv.At(0, c));
  EXPECT_FALSE(core_.faulted());
}

}  // namespace
}  // namespace pypto::isa_test
