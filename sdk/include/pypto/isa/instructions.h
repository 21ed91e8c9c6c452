// The tile instructions, executed on the CPU. Every instruction:
//  - works on the destination's valid region; sources must cover it;
//  - fills the rest of a destination whose Pad is not Null with the pad value;
//  - checks its tiles (assigned, valid shape inside the static shape, extents
//    that fit) and on a fault records it in the SimCore and does nothing.
// Faults name the source line PYPTO_LOC set (SimCore::line).
#pragma once

#include "pypto/isa/hazard.h"
#include "pypto/isa/perf_model.h"
#include "pypto/isa/sim_core.h"
#include "pypto/isa/tile.h"
#include "pypto/isa/types.h"

#if defined(__clang__)
// Loops the vectorizer cannot transform after all (a column-major walk, a
// conversion) stay scalar; that is not worth a warning in every kernel.
#pragma clang diagnostic ignored "-Wpass-failed"
// assume_safety: the memory planner runs most element-wise instructions in
// place (dst at src's address), which makes Clang's run-time overlap check
// fail and every such loop fall back to scalar code. Each loop this marks
// reads element i before any iteration writes it, so loads of a vector of
// iterations ahead of its stores compute what the scalar loop computes.
#define PTO_VECTORIZE _Pragma("clang loop vectorize(assume_safety) interleave(enable)")
#elif defined(__GNUC__)
#define PTO_VECTORIZE _Pragma("GCC ivdep")
#else
#define PTO_VECTORIZE
#endif

namespace pto {

enum class CmpMode : uint8_t { EQ = 0, NE = 1, LT = 2, LE = 3, GT = 4, GE = 5 };

// tile.cast's `mode`: 0 none (round to nearest even when inexact), 1 rint,
// 2 round (ties away from zero), 3 floor, 4 ceil, 5 trunc, 6 odd.
enum class RoundMode : uint8_t {
  CAST_NONE = 0,
  CAST_RINT = 1,
  CAST_ROUND = 2,
  CAST_FLOOR = 3,
  CAST_CEIL = 4,
  CAST_TRUNC = 5,
  CAST_ODD = 6,
};

namespace detail {

// Eight lanes of T as a compiler vector type (GCC and Clang), so that hot loops
// (matmul, row reductions) do not depend on either auto-vectorizer.
template <typename T>
struct Lanes8 {
  typedef T type __attribute__((vector_size(8 * sizeof(T))));
};

inline void Raise(SimCore* core, FaultKind kind, const char* name, TileType space, int64_t value,
                  int64_t limit) {
  if (!core) core = pypto_sim_current_core();
  if (core) core->Raise(kind, name, space, value, limit);
}

template <typename TileT>
inline bool Usable(const TileT& t, const char* name) {
  if (!t.data_) {
    Raise(t.core, FaultKind::Unassigned, name, TileT::Loc, static_cast<int64_t>(t.addr), 0);
    return false;
  }
  if constexpr (!TileT::kStaticValid) {
    int vr = t.GetValidRow();
    int vc = t.GetValidCol();
    if (vr < 0 || vr > TileT::kRows) {
      Raise(t.core, FaultKind::ValidShape, name, TileT::Loc, vr, TileT::kRows);
      return false;
    }
    if (vc < 0 || vc > TileT::kCols) {
      Raise(t.core, FaultKind::ValidShape, name, TileT::Loc, vc, TileT::kCols);
      return false;
    }
  }
  return true;
}

template <typename... Tiles>
inline bool Usable(const char* name, const Tiles&... tiles) {
  return (Usable(tiles, name) && ...);
}

// `src` must cover rows x cols of its valid region.
template <typename TileT>
inline bool Covers(const TileT& src, int rows, int cols, const char* name) {
  if (src.GetValidRow() < rows) {
    Raise(src.core, FaultKind::ShapeMismatch, name, TileT::Loc, rows, src.GetValidRow());
    return false;
  }
  if (src.GetValidCol() < cols) {
    Raise(src.core, FaultKind::ShapeMismatch, name, TileT::Loc, cols, src.GetValidCol());
    return false;
  }
  return true;
}

template <typename TileT>
inline void FillPad(TileT& t) {
  if constexpr (TileT::kPad != PadValue::Null) {
    using T = typename TileT::DType;
    const T pad = PadOf<T, TileT::kPad>();
    int vr = t.GetValidRow();
    int vc = t.GetValidCol();
    for (int r = 0; r < TileT::kRows; ++r) {
      for (int c = (r < vr ? vc : 0); c < TileT::kCols; ++c) t.At(r, c) = pad;
    }
  }
}

// Visit the rows x cols region in the order of the destination's layout.
template <bool RowMajor, typename F>
inline void ForEach(int rows, int cols, F&& f) {
  if constexpr (RowMajor) {
    for (int r = 0; r < rows; ++r) {
      PTO_VECTORIZE
      for (int c = 0; c < cols; ++c) f(r, c);
    }
  } else {
    for (int c = 0; c < cols; ++c) {
      PTO_VECTORIZE
      for (int r = 0; r < rows; ++r) f(r, c);
    }
  }
}

template <typename T>
inline Compute<T> Load(const T& v) {
  return static_cast<Compute<T>>(v);
}

// Where a NaN sits in a tile's valid region, as (row, col); (-1, -1) if none.
template <typename TileT>
inline void FindNaN(const TileT& t, int& row, int& col) {
  row = col = -1;
  int vr = t.GetValidRow();
  int vc = t.GetValidCol();
  for (int r = 0; r < vr; ++r) {
    for (int c = 0; c < vc; ++c) {
      auto v = Load(t.At(r, c));
      if (v != v) {
        row = r;
        col = c;
        return;
      }
    }
  }
}

// Ends an instruction that wrote tile `t`: fills its pad and, in a kernel
// built with PTO_CHECK_NAN (RunConfig(check_nan=True)), records a NaN in its
// valid region as a fault of this instruction, so that the first instruction
// whose result holds a NaN is the one reported.
template <typename TileT>
inline void Finish(TileT& t, [[maybe_unused]] const char* name) {
  FillPad(t);
#if defined(PTO_CHECK_NAN)
  if constexpr (kIsFloat<typename TileT::DType>) {
    int row = 0, col = 0;
    FindNaN(t, row, col);
    if (row >= 0) Raise(t.core, FaultKind::NaN, name, TileT::Loc, row, col);
  }
#endif
}

template <typename T, typename V>
inline T Store(V v) {
  if constexpr (kSame<T, half> || kSame<T, bfloat16>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// ---- What each instruction costs (the performance model, perf_model.h) and
// what it touches on which pipe (the hazard checker, hazard.h). Both are off
// unless the runtime turns them on for the core: one test of each pointer.

template <typename TileT>
inline PerfModel* ModelOf(const TileT& t) {
  return t.core != nullptr ? t.core->perf : nullptr;
}

// `elements` of tile `t` (its valid region, or part of it) as an operand.
template <typename TileT>
inline Operand TileOperand(const TileT& t, int64_t elements) {
  return {static_cast<int>(TileT::Loc), t.addr, TileT::kBytes,
          static_cast<uint64_t>(elements) * sizeof(typename TileT::DType)};
}

inline Operand GlobalOperand(int64_t bytes) { return {kGlobalMemory, 0, 0, static_cast<uint64_t>(bytes)}; }

template <typename TileT>
inline int64_t ValidElements(const TileT& t) {
  return static_cast<int64_t>(t.GetValidRow()) * t.GetValidCol();
}

inline bool Observed(const SimCore* core) {
  if constexpr (kCheckPipeHazards) return core != nullptr && (core->perf != nullptr || core->hazards != nullptr);
  return core != nullptr && core->perf != nullptr;
}

// One instruction on `pipe` for the hazard checker: its on-chip operands'
// footprints and, where it moves one, a global-memory window.
inline void CheckHazards(SimCore* core, const char* name, Pipe pipe, const Operand* reads, int num_reads,
                         const Operand* writes, int num_writes, const MemAccess* global = nullptr) {
  if constexpr (kCheckPipeHazards) {
    if (core->hazards == nullptr) return;
    MemAccess accesses[8];
    int n = 0;
    auto add = [&](const Operand& o, bool write) {
      if (o.space == kGlobalMemory || o.footprint == 0 || n == 8) return;
      MemAccess& a = accesses[n++];
      a.space = o.space;
      a.write = write ? 1 : 0;
      a.base = o.addr;
      a.width = o.footprint;
    };
    for (int i = 0; i < num_reads; ++i) add(reads[i], false);
    for (int i = 0; i < num_writes; ++i) add(writes[i], true);
    if (global != nullptr && n < 8) accesses[n++] = *global;
    core->hazards->Access(*core, name, HazardPipeOf(pipe), accesses, n);
  }
}

// A vector instruction writing `dst_elements` of dst and reading `reads`:
// the vector unit streams the widest of them.
template <typename D, typename... Reads>
inline void CountVector(const char* name, const D& dst, int64_t dst_elements, const Reads&... reads) {
  if (!Observed(dst.core)) return;
  const Operand in[sizeof...(Reads) + 1] = {reads...};
  const Operand out = TileOperand(dst, dst_elements);
  CheckHazards(dst.core, name, Pipe::V, in, sizeof...(Reads), &out, 1);
  PerfModel* model = dst.core->perf;
  if (model == nullptr) return;
  uint64_t bytes = out.bytes;
  for (int i = 0; i < static_cast<int>(sizeof...(Reads)); ++i) bytes = in[i].bytes > bytes ? in[i].bytes : bytes;
  model->Issue(Pipe::V, model->WorkCycles(Pipe::V, static_cast<double>(bytes)), in, sizeof...(Reads), &out, 1);
}

// The engine that moves a tile from one space to another (pto-isa's
// OpPipeEntry: TMOV_A2V / A2M FIX, M2L / M2R / M2B MTE1, V2M FIX, V2V V);
// the op registry's MovePipe (core/src/ops/tile_ops.cpp) says the same.
inline constexpr Pipe MovePipe(TileType from, TileType to) {
  if (from == TileType::Acc) return Pipe::FIX;
  if (from == TileType::Mat) return Pipe::MTE1;
  if (from == TileType::Vec && to != TileType::Vec) return Pipe::FIX;
  return Pipe::V;
}

// `hazards`: false for a move inside another instruction (the bias of
// TMATMUL_BIAS, the copy of a four-operand TMATMUL_ACC), which that
// instruction reports as its own access.
template <typename D, typename S>
inline void CountMove(const char* name, const D& dst, const S& src, int64_t elements, bool hazards = true) {
  if (!Observed(dst.core)) return;
  constexpr Pipe pipe = MovePipe(S::Loc, D::Loc);
  const Operand in = TileOperand(src, elements);
  const Operand out = TileOperand(dst, elements);
  if (hazards) CheckHazards(dst.core, name, pipe, &in, 1, &out, 1);
  PerfModel* model = dst.core->perf;
  if (model == nullptr) return;
  uint64_t bytes = in.bytes > out.bytes ? in.bytes : out.bytes;
  model->Issue(pipe, model->WorkCycles(pipe, static_cast<double>(bytes)), &in, 1, &out, 1);
}

// Global memory -> tile (MTE2) and tile -> global memory (MTE3 from Vec and
// Mat, FIX from Acc); `global` is the window in global memory.
template <typename TileT, typename GT>
inline void CountLoad(const char* name, const TileT& tile, int64_t elements, const GT& global, int64_t rows,
                      int64_t cols) {
  if (!Observed(tile.core)) return;
  const Operand out = TileOperand(tile, elements);
  const Operand in = GlobalOperand(static_cast<int64_t>(out.bytes));
  if constexpr (kCheckPipeHazards) {
    const MemAccess window = tile.core->hazards != nullptr ? GlobalAccess(global, rows, cols, false) : MemAccess{};
    CheckHazards(tile.core, name, Pipe::MTE2, &in, 1, &out, 1, &window);
  }
  PerfModel* model = tile.core->perf;
  if (model == nullptr) return;
  model->Issue(Pipe::MTE2, model->WorkCycles(Pipe::MTE2, static_cast<double>(out.bytes)), &in, 1, &out, 1);
}

template <typename TileT, typename GT>
inline void CountStore(const char* name, const TileT& tile, int64_t elements, int64_t global_bytes, const GT& global,
                       int64_t rows, int64_t cols) {
  if (!Observed(tile.core)) return;
  constexpr Pipe pipe = TileT::Loc == TileType::Acc ? Pipe::FIX : Pipe::MTE3;
  const Operand in = TileOperand(tile, elements);
  const Operand out = GlobalOperand(global_bytes);
  if constexpr (kCheckPipeHazards) {
    const MemAccess window = tile.core->hazards != nullptr ? GlobalAccess(global, rows, cols, true) : MemAccess{};
    CheckHazards(tile.core, name, pipe, &in, 1, &out, 1, &window);
  }
  PerfModel* model = tile.core->perf;
  if (model == nullptr) return;
  model->Issue(pipe, model->WorkCycles(pipe, static_cast<double>(in.bytes)), &in, 1, &out, 1);
}

template <typename T>
inline constexpr CubeKind kCubeKind = sizeof(T) == 1 ? CubeKind::Int8 : sizeof(T) == 4 ? CubeKind::Float : CubeKind::Half;

// acc [m, n] (+)= left [m, k] @ right [k, n] on the cube. `accumulates_from`
// is what the instruction adds the product to when that is not acc itself
// (TMATMUL_BIAS's bias, a four-operand TMATMUL_ACC's c_in).
template <typename C, typename A, typename B>
inline void CountMatmul(const char* name, const C& acc, const A& left, const B& right, int m, int n, int k,
                        bool accumulate, const Operand* accumulates_from = nullptr) {
  if (!Observed(acc.core)) return;
  const Operand out = TileOperand(acc, static_cast<int64_t>(m) * n);
  const Operand in[3] = {TileOperand(left, static_cast<int64_t>(m) * k), TileOperand(right, static_cast<int64_t>(k) * n),
                         out};
  Operand reads[4] = {in[0], in[1]};
  int num_reads = 2;
  if (accumulates_from != nullptr) {
    reads[num_reads++] = *accumulates_from;
  } else if (accumulate) {
    reads[num_reads++] = out;
  }
  CheckHazards(acc.core, name, Pipe::M, reads, num_reads, &out, 1);
  PerfModel* model = acc.core->perf;
  if (model == nullptr) return;
  const double macs = static_cast<double>(m) * n * k;
  model->Issue(Pipe::M, model->CubeCycles(kCubeKind<typename A::DType>, macs), in, accumulate ? 3 : 2, &out, 1);
}

// Integer division never traps: x / 0 is 0 and MIN / -1 wraps to MIN.
template <typename T>
inline T Div(T a, T b) {
  if constexpr (kIsFloat<T>) {
    return a / b;
  } else {
    if (b == 0) return 0;
    if constexpr (kIsSigned<T>) {
      if (b == static_cast<T>(-1)) return static_cast<T>(0 - static_cast<__UINT64_TYPE__>(a));
    }
    return static_cast<T>(a / b);
  }
}

// Remainder with the sign of the dividend (C fmod, torch.fmod).
template <typename T>
inline T Fmod(T a, T b) {
  if constexpr (kSame<T, double>) {
    return __builtin_fmod(a, b);
  } else if constexpr (kIsFloat<T>) {
    return static_cast<T>(__builtin_fmodf(static_cast<float>(a), static_cast<float>(b)));
  } else {
    if (b == 0) return 0;
    if constexpr (kIsSigned<T>) {
      if (b == static_cast<T>(-1)) return 0;
    }
    return static_cast<T>(a % b);
  }
}

// Remainder with the sign of the divisor (torch.remainder); x % 0 is 0 for integers.
template <typename T>
inline T Rem(T a, T b) {
  if constexpr (kIsFloat<T>) {
    T r = Fmod(a, b);
    if (r != static_cast<T>(0) && ((r < static_cast<T>(0)) != (b < static_cast<T>(0)))) r += b;
    return r;
  } else {
    if (b == 0) return 0;
    if constexpr (kIsSigned<T>) {
      if (b == static_cast<T>(-1)) return 0;
    }
    T r = static_cast<T>(a % b);
    if constexpr (kIsSigned<T>) {
      if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    }
    return r;
  }
}

// Shifts by counts outside [0, bits) give 0 (left, unsigned right) or the
// sign fill (signed right) instead of undefined behaviour.
template <typename T, typename C>
inline T ShiftLeft(T a, C count) {
  constexpr int kBits = sizeof(T) * 8;
  if (count < 0 || count >= kBits) return 0;
  using U = decltype(static_cast<unsigned long long>(a));
  return static_cast<T>(static_cast<U>(a) << count);
}
template <typename T, typename C>
inline T ShiftRight(T a, C count) {
  constexpr int kBits = sizeof(T) * 8;
  if (count < 0 || count >= kBits) {
    if constexpr (kIsSigned<T>) return a < 0 ? static_cast<T>(-1) : static_cast<T>(0);
    return 0;
  }
  return static_cast<T>(a >> count);
}

template <typename T>
inline T Max(T a, T b) {
  if constexpr (kIsFloat<T>) {
    if (a != a) return a;  // NaN propagates, as torch.maximum does
    if (b != b) return b;
  }
  return a > b ? a : b;
}
template <typename T>
inline T Min(T a, T b) {
  if constexpr (kIsFloat<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a < b ? a : b;
}

// exp of a float, computed in double and rounded once, as pto-isa's CPU
// simulation computes TEXP ((float)std::exp((double)x)): x = n ln2 + r with
// |r| <= ln2 / 2 (ln2 in two parts, the first with trailing zero bits so
// that n times it is exact), e^r by its Taylor series to r^13 (the first
// term left out is below 2^-57 of the result), times 2^n built from
// exponent bits. The error, a few units in the last place of the double, is
// 2^-26 of a float's: the rounded result is the correctly rounded float
// unless the exact value lies that close to a rounding midpoint. No libm
// call, so that loops over it vectorize. F is double or a vector of
// doubles, I the matching int64 type; in place, so that no vector crosses a
// call boundary (its ABI depends on the target's features).
template <typename F, typename I>
inline void ExpInPlace(F& v) {
  // Beyond these every float result is inf or 0; clamping keeps 2^n a normal double. NaN passes through.
  F x = v > 100.0 ? 100.0 : v;
  x = x < -120.0 ? -120.0 : x;
  const double magic = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to an integer
  F shifted = x * 1.4426950408889634 + magic;
  F n = shifted - magic;
  F r = x - n * 0x1.62e42fee00000p-1;
  r = r - n * 0x1.a39ef35793c76p-33;
  constexpr double kInverseFactorial[] = {1.0,         1.0,          1.0 / 2,         1.0 / 6,         1.0 / 24,
                                          1.0 / 120,   1.0 / 720,    1.0 / 5040,      1.0 / 40320,     1.0 / 362880,
                                          1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800};
  F p = r * kInverseFactorial[13];
  for (int k = 12; k >= 1; --k) p = (p + kInverseFactorial[k]) * r;
  p = p + 1.0;
  I ni = __builtin_bit_cast(I, shifted) - __builtin_bit_cast(int64_t, magic);
  v = p * __builtin_bit_cast(F, (ni + 1023) << 52);
}

inline float ExpFloat(float x) {
  double v = x;
  ExpInPlace<double, int64_t>(v);
  return static_cast<float>(v);
}

typedef float Float8Lanes __attribute__((vector_size(8 * sizeof(float))));
typedef double Double8Lanes __attribute__((vector_size(8 * sizeof(double))));
typedef int64_t Int64x8Lanes __attribute__((vector_size(8 * sizeof(int64_t))));

// dst = exp(src - shift(r)) on the rows x cols region of float row-major
// tiles (shift: none, or a per-row float, subtracted in float as the ISA
// does), 8 columns at a time; a row's last partial group goes through a
// zero-padded vector, so that every element is computed the same way
// wherever it sits. The caller checks the tiles.
template <bool kShifted, typename D, typename S, typename Shift>
inline void ExpFloatRows(D& dst, const S& src, int rows, int cols, Shift shift) {
  constexpr int kLanes = 8;
  auto exp_lanes = [](Float8Lanes& v, float by) {
    if constexpr (kShifted) v -= by;
    Double8Lanes wide = __builtin_convertvector(v, Double8Lanes);
    ExpInPlace<Double8Lanes, Int64x8Lanes>(wide);
    v = __builtin_convertvector(wide, Float8Lanes);
  };
  for (int r = 0; r < rows; ++r) {
    float* d = &dst.At(r, 0);
    const float* x = &src.At(r, 0);
    const float by = kShifted ? shift(r) : 0.0f;
    int c = 0;
    // Two independent groups per step, so that their polynomials' dependency chains overlap.
    for (; c + 2 * kLanes <= cols; c += 2 * kLanes) {
      Float8Lanes v0, v1;
      __builtin_memcpy(&v0, x + c, sizeof(v0));
      __builtin_memcpy(&v1, x + c + kLanes, sizeof(v1));
      exp_lanes(v0, by);
      exp_lanes(v1, by);
      __builtin_memcpy(d + c, &v0, sizeof(v0));
      __builtin_memcpy(d + c + kLanes, &v1, sizeof(v1));
    }
    for (; c + kLanes <= cols; c += kLanes) {
      Float8Lanes v;
      __builtin_memcpy(&v, x + c, sizeof(v));
      exp_lanes(v, by);
      __builtin_memcpy(d + c, &v, sizeof(v));
    }
    if (c == cols) continue;
    float tail[kLanes] = {};
    __builtin_memcpy(tail, x + c, (cols - c) * sizeof(float));
    Float8Lanes v;
    __builtin_memcpy(&v, tail, sizeof(v));
    exp_lanes(v, by);
    __builtin_memcpy(tail, &v, sizeof(v));
    __builtin_memcpy(d + c, tail, (cols - c) * sizeof(float));
  }
}

template <typename D, typename S>
inline constexpr bool kFloatRows = kSame<typename D::DType, float> && kSame<typename S::DType, float> &&
                                   D::kRowMajor && S::kRowMajor;


template <typename T>
inline T Exp(T x) {
  if constexpr (kSame<T, double>) return __builtin_exp(x);
  else return static_cast<T>(ExpFloat(static_cast<float>(x)));
}
// In double and rounded once, as pto-isa's CPU simulation computes TLOG.
template <typename T>
inline T Log(T x) {
  return static_cast<T>(__builtin_log(static_cast<double>(x)));
}
template <typename T>
inline T Sqrt(T x) {
  if constexpr (kSame<T, double>) return __builtin_sqrt(x);
  else return static_cast<T>(__builtin_sqrtf(static_cast<float>(x)));
}
template <typename T>
inline T Abs(T x) {
  return x < static_cast<T>(0) ? static_cast<T>(-x) : x;
}

template <typename T>
inline bool Compare(T a, T b, CmpMode mode) {
  switch (mode) {
    case CmpMode::EQ: return a == b;
    case CmpMode::NE: return a != b;
    case CmpMode::LT: return a < b;
    case CmpMode::LE: return a <= b;
    case CmpMode::GT: return a > b;
    case CmpMode::GE: return a >= b;
  }
  return false;
}

template <typename D, typename S, typename F>
inline void Unary(const char* name, D& dst, const S& src, F f) {
  if (!Usable(name, dst, src)) return;
  int rows = dst.GetValidRow();
  int cols = dst.GetValidCol();
  if (!Covers(src, rows, cols, name)) return;
  using T = typename D::DType;
  // Local pointers: the vectorizer cannot see past a store that might change dst.data_.
  T* d = dst.data_;
  const auto* x = src.data_;
  ForEach<D::kRowMajor>(rows, cols, [&](int r, int c) { d[D::Index(r, c)] = Store<T>(f(Load(x[S::Index(r, c)]))); });
  Finish(dst, name);
  CountVector(name, dst, rows * cols, TileOperand(src, rows * cols));
}

template <typename D, typename A, typename B, typename F>
inline void Binary(const char* name, D& dst, const A& a, const B& b, F f) {
  if (!Usable(name, dst, a, b)) return;
  int rows = dst.GetValidRow();
  int cols = dst.GetValidCol();
  if (!Covers(a, rows, cols, name) || !Covers(b, rows, cols, name)) return;
  using T = typename D::DType;
  T* d = dst.data_;
  const auto* x = a.data_;
  const auto* y = b.data_;
  ForEach<D::kRowMajor>(rows, cols, [&](int r, int c) {
    d[D::Index(r, c)] = Store<T>(f(Load(x[A::Index(r, c)]), Load(y[B::Index(r, c)])));
  });
  Finish(dst, name);
  CountVector(name, dst, rows * cols, TileOperand(a, rows * cols), TileOperand(b, rows * cols));
}

// dst = f(src, per-row value): vec is [rows, 1] (or any tile; column 0 is read).
template <typename D, typename S, typename V, typename F>
inline void RowExpand(const char* name, D& dst, const S& src, const V& vec, F f) {
  if (!Usable(name, dst, src, vec)) return;
  int rows = dst.GetValidRow();
  int cols = dst.GetValidCol();
  if (!Covers(src, rows, cols, name) || !Covers(vec, rows, 1, name)) return;
  using T = typename D::DType;
  T* d = dst.data_;
  const auto* x = src.data_;
  for (int r = 0; r < rows; ++r) {
    auto v = Load(vec.At(r, 0));
    PTO_VECTORIZE
    for (int c = 0; c < cols; ++c) d[D::Index(r, c)] = Store<T>(f(Load(x[S::Index(r, c)]), v));
  }
  Finish(dst, name);
  CountVector(name, dst, rows * cols, TileOperand(src, rows * cols), TileOperand(vec, rows));
}

// dst = f(src, per-column value): vec is [1, cols] (row 0 is read).
template <typename D, typename S, typename V, typename F>
inline void ColExpand(const char* name, D& dst, const S& src, const V& vec, F f) {
  if (!Usable(name, dst, src, vec)) return;
  int rows = dst.GetValidRow();
  int cols = dst.GetValidCol();
  if (!Covers(src, rows, cols, name) || !Covers(vec, 1, cols, name)) return;
  using T = typename D::DType;
  T* d = dst.data_;
  const auto* x = src.data_;
  const auto* v = vec.data_;
  for (int r = 0; r < rows; ++r) {
    PTO_VECTORIZE
    for (int c = 0; c < cols; ++c) d[D::Index(r, c)] = Store<T>(f(Load(x[S::Index(r, c)]), Load(v[V::Index(0, c)])));
  }
  Finish(dst, name);
  CountVector(name, dst, rows * cols, TileOperand(src, rows * cols), TileOperand(vec, cols));
}

// TEXP: the 16-lane path for float rows, element by element otherwise.
template <typename D, typename S>
inline void Exp(const char* name, D& dst, const S& src) {
  if constexpr (kFloatRows<D, S>) {
    if (!Usable(name, dst, src)) return;
    int rows = dst.GetValidRow();
    int cols = dst.GetValidCol();
    if (!Covers(src, rows, cols, name)) return;
    ExpFloatRows<false>(dst, src, rows, cols, [](int) { return 0.0f; });
    Finish(dst, name);
    CountVector(name, dst, rows * cols, TileOperand(src, rows * cols));
  } else {
    Unary(name, dst, src, [](auto x) { return Exp(x); });
  }
}

// `v` rounded to the element type T: the EXPDIF instructions subtract in the
// tile's type (a half difference is a half) before they take the exp.
template <typename T, typename C>
inline C InElementType(C v) {
  return Load(Store<T>(v));
}

// dst = exp(src - per-row value): the 16-lane exp for float rows.
template <typename D, typename S, typename V>
inline void RowExpandExpDif(const char* name, D& dst, const S& src, const V& vec) {
  if constexpr (kFloatRows<D, S> && kSame<typename V::DType, float>) {
    if (!Usable(name, dst, src, vec)) return;
    int rows = dst.GetValidRow();
    int cols = dst.GetValidCol();
    if (!Covers(src, rows, cols, name) || !Covers(vec, rows, 1, name)) return;
    ExpFloatRows<true>(dst, src, rows, cols, [&](int r) { return vec.At(r, 0); });
    Finish(dst, name);
    CountVector(name, dst, rows * cols, TileOperand(src, rows * cols), TileOperand(vec, rows));
  } else {
    RowExpand(name, dst, src, vec, [](auto x, auto v) { return Exp(InElementType<typename D::DType>(x - v)); });
  }
}

template <typename D, typename S, typename V>
inline void ColExpandExpDif(const char* name, D& dst, const S& src, const V& vec) {
  ColExpand(name, dst, src, vec, [](auto x, auto v) { return Exp(InElementType<typename D::DType>(x - v)); });
}

// The accumulator of a reduction: float for floating types, int64 for integers.
template <typename T>
struct SumOf {
  using type = int64_t;
};
template <>
struct SumOf<float> {
  using type = float;
};
template <>
struct SumOf<double> {
  using type = double;
};
template <>
struct SumOf<half> {
  using type = float;
};
template <>
struct SumOf<bfloat16> {
  using type = float;
};

enum class Reduce { Sum, Max, Min, Prod };

template <Reduce Op, typename A>
inline A Init() {
  if constexpr (Op == Reduce::Sum) return static_cast<A>(0);
  else if constexpr (Op == Reduce::Prod) return static_cast<A>(1);
  else if constexpr (Op == Reduce::Max) return static_cast<A>(Limits<A>::Min());
  else return static_cast<A>(Limits<A>::Max());
}
template <Reduce Op, typename A>
inline A Step(A acc, A v) {
  if constexpr (Op == Reduce::Sum) return acc + v;
  else if constexpr (Op == Reduce::Prod) return acc * v;
  else if constexpr (Op == Reduce::Max) return Max(acc, v);
  else return Min(acc, v);
}

// The accumulator between two steps of a reduction into D, as pto-isa's CPU
// simulation keeps it (pto/cpu/TRowSum.hpp, TColSum.hpp, TRowProd.hpp,
// TColProd.hpp): a product, and a column sum, is rounded to the
// destination's dtype after every step; a row sum of half-precision floats
// stays in float until the end. Integers wrap alike either way.
template <Reduce Op, bool kRows, typename D, typename A>
inline A BetweenSteps(A acc) {
  using T = typename D::DType;
  constexpr bool kRoundsEachStep = Op == Reduce::Prod || (Op == Reduce::Sum && !kRows);
  if constexpr (kRoundsEachStep && kIsFloat<A> && !kSame<T, A>) return static_cast<A>(Load(Store<T>(acc)));
  else return acc;
}

typedef float Float8 __attribute__((vector_size(8 * sizeof(float))));

// The in-order sum (product) of eight float rows, eight columns at a time:
// an 8 x 8 block is transposed in registers so that each lane holds one
// row, and the block's columns are then added to the lanes one after
// another, left to right, as the scalar loop would. Returns the first
// column left for the caller; acc holds each row's running result.
template <Reduce Op, typename S>
inline int InOrderRowsOf8(const S& src, int r, int cols, float* acc) {
  Float8 lanes;
  __builtin_memcpy(&lanes, acc, sizeof(lanes));
  int c = 0;
  for (; c + 8 <= cols; c += 8) {
    Float8 x0, x1, x2, x3, x4, x5, x6, x7;
    __builtin_memcpy(&x0, &src.At(r + 0, c), sizeof(Float8));
    __builtin_memcpy(&x1, &src.At(r + 1, c), sizeof(Float8));
    __builtin_memcpy(&x2, &src.At(r + 2, c), sizeof(Float8));
    __builtin_memcpy(&x3, &src.At(r + 3, c), sizeof(Float8));
    __builtin_memcpy(&x4, &src.At(r + 4, c), sizeof(Float8));
    __builtin_memcpy(&x5, &src.At(r + 5, c), sizeof(Float8));
    __builtin_memcpy(&x6, &src.At(r + 6, c), sizeof(Float8));
    __builtin_memcpy(&x7, &src.At(r + 7, c), sizeof(Float8));
    Float8 a0 = __builtin_shufflevector(x0, x1, 0, 8, 1, 9, 4, 12, 5, 13);
    Float8 a1 = __builtin_shufflevector(x0, x1, 2, 10, 3, 11, 6, 14, 7, 15);
    Float8 a2 = __builtin_shufflevector(x2, x3, 0, 8, 1, 9, 4, 12, 5, 13);
    Float8 a3 = __builtin_shufflevector(x2, x3, 2, 10, 3, 11, 6, 14, 7, 15);
    Float8 a4 = __builtin_shufflevector(x4, x5, 0, 8, 1, 9, 4, 12, 5, 13);
    Float8 a5 = __builtin_shufflevector(x4, x5, 2, 10, 3, 11, 6, 14, 7, 15);
    Float8 a6 = __builtin_shufflevector(x6, x7, 0, 8, 1, 9, 4, 12, 5, 13);
    Float8 a7 = __builtin_shufflevector(x6, x7, 2, 10, 3, 11, 6, 14, 7, 15);
    Float8 b0 = __builtin_shufflevector(a0, a2, 0, 1, 8, 9, 4, 5, 12, 13);
    Float8 b1 = __builtin_shufflevector(a0, a2, 2, 3, 10, 11, 6, 7, 14, 15);
    Float8 b2 = __builtin_shufflevector(a1, a3, 0, 1, 8, 9, 4, 5, 12, 13);
    Float8 b3 = __builtin_shufflevector(a1, a3, 2, 3, 10, 11, 6, 7, 14, 15);
    Float8 b4 = __builtin_shufflevector(a4, a6, 0, 1, 8, 9, 4, 5, 12, 13);
    Float8 b5 = __builtin_shufflevector(a4, a6, 2, 3, 10, 11, 6, 7, 14, 15);
    Float8 b6 = __builtin_shufflevector(a5, a7, 0, 1, 8, 9, 4, 5, 12, 13);
    Float8 b7 = __builtin_shufflevector(a5, a7, 2, 3, 10, 11, 6, 7, 14, 15);
    // Column j of the block, one lane per row.
    const Float8 columns[8] = {
        __builtin_shufflevector(b0, b4, 0, 1, 2, 3, 8, 9, 10, 11),
        __builtin_shufflevector(b1, b5, 0, 1, 2, 3, 8, 9, 10, 11),
        __builtin_shufflevector(b2, b6, 0, 1, 2, 3, 8, 9, 10, 11),
        __builtin_shufflevector(b3, b7, 0, 1, 2, 3, 8, 9, 10, 11),
        __builtin_shufflevector(b0, b4, 4, 5, 6, 7, 12, 13, 14, 15),
        __builtin_shufflevector(b1, b5, 4, 5, 6, 7, 12, 13, 14, 15),
        __builtin_shufflevector(b2, b6, 4, 5, 6, 7, 12, 13, 14, 15),
        __builtin_shufflevector(b3, b7, 4, 5, 6, 7, 12, 13, 14, 15),
    };
    for (const Float8& column : columns) {
      if constexpr (Op == Reduce::Sum) lanes += column;
      else lanes *= column;
    }
  }
  __builtin_memcpy(acc, &lanes, sizeof(lanes));
  return c;
}

// Reduce rows r .. r + NR - 1 of src over [0, cols) into out[0 .. NR).
// Sums and products go column by column in order, as pto-isa's CPU
// simulation does; the NR rows share the pass so that their dependency
// chains (one per row) overlap. Maxima and minima, exact in any order, take
// 16 columns at a time through compiler vector types.
template <Reduce Op, typename D, typename A, int NR, typename S>
inline void ReduceRows(const S& src, int r, int cols, A* out) {
  A acc[NR];
  for (int q = 0; q < NR; ++q) acc[q] = Init<Op, A>();
  int c = 0;
  if constexpr ((Op == Reduce::Max || Op == Reduce::Min) && S::kRowMajor && kSame<typename S::DType, A> &&
                kIsFloat<A>) {
    constexpr int kLanes = 16;
    typedef A V __attribute__((vector_size(kLanes * sizeof(A))));
    V p[NR];
    for (int q = 0; q < NR; ++q) p[q] = V{} + Init<Op, A>();
    for (; c + kLanes <= cols; c += kLanes) {
      for (int q = 0; q < NR; ++q) {
        V x;
        __builtin_memcpy(&x, &src.At(r + q, c), sizeof(V));
        V m;
        if constexpr (Op == Reduce::Max) m = p[q] > x ? p[q] : x;
        else m = p[q] < x ? p[q] : x;
        m = (x != x) ? x : m;  // NaN propagates
        p[q] = (p[q] != p[q]) ? p[q] : m;
      }
    }
    for (int q = 0; q < NR; ++q) {
      for (int l = 0; l < kLanes; ++l) acc[q] = Step<Op, A>(acc[q], p[q][l]);
    }
  }
  if constexpr ((Op == Reduce::Sum || Op == Reduce::Prod) && NR == 8 && S::kRowMajor &&
                kSame<typename S::DType, float> && kSame<A, float> && kSame<typename D::DType, float>) {
    c = InOrderRowsOf8<Op>(src, r, cols, acc);
  }
  for (; c < cols; ++c) {
    for (int q = 0; q < NR; ++q) {
      acc[q] = BetweenSteps<Op, true, D>(Step<Op, A>(acc[q], static_cast<A>(Load(src.At(r + q, c)))));
    }
  }
  for (int q = 0; q < NR; ++q) out[q] = acc[q];
}

// dst[r, 0] = reduce(src[r, 0 .. valid cols)) for r < src's valid rows.
template <Reduce Op, typename D, typename S>
inline void RowReduce(const char* name, D& dst, const S& src) {
  if (!Usable(name, dst, src)) return;
  int rows = src.GetValidRow();
  int cols = src.GetValidCol();
  if (dst.GetValidRow() < rows || dst.GetValidCol() < 1) {
    Raise(dst.core, FaultKind::ShapeMismatch, name, D::Loc, rows, dst.GetValidRow());
    return;
  }
  using A = typename SumOf<typename S::DType>::type;
  constexpr int kRowsAtOnce = 8;
  A results[kRowsAtOnce];
  int r = 0;
  for (; r + kRowsAtOnce <= rows; r += kRowsAtOnce) {
    ReduceRows<Op, D, A, kRowsAtOnce>(src, r, cols, results);
    for (int q = 0; q < kRowsAtOnce; ++q) dst.At(r + q, 0) = Store<typename D::DType>(results[q]);
  }
  // Counted down: GCC 12 otherwise proves a bogus overflow of the element index in this tail loop.
  for (int left = rows - r; left > 0; --left, ++r) {
    ReduceRows<Op, D, A, 1>(src, r, cols, results);
    dst.At(r, 0) = Store<typename D::DType>(results[0]);
  }
  Finish(dst, name);
  CountVector(name, dst, rows, TileOperand(src, rows * cols));
}

// dst[0, c] = reduce(src[0 .. valid rows, c)) for c < src's valid cols.
template <Reduce Op, typename D, typename S>
inline void ColReduce(const char* name, D& dst, const S& src) {
  if (!Usable(name, dst, src)) return;
  int rows = src.GetValidRow();
  int cols = src.GetValidCol();
  if (dst.GetValidCol() < cols || dst.GetValidRow() < 1) {
    Raise(dst.core, FaultKind::ShapeMismatch, name, D::Loc, cols, dst.GetValidCol());
    return;
  }
  using A = typename SumOf<typename S::DType>::type;
  using T = typename D::DType;
  // Column by column, written once read: dst may be src's first row (the
  // registry lets col_max/min/prod run in place).
  for (int c = 0; c < cols; ++c) {
    A acc = Init<Op, A>();
    for (int r = 0; r < rows; ++r) {
      acc = BetweenSteps<Op, false, D>(Step<Op, A>(acc, static_cast<A>(Load(src.At(r, c)))));
    }
    dst.At(0, c) = Store<T>(acc);
  }
  Finish(dst, name);
  CountVector(name, dst, cols, TileOperand(src, rows * cols));
}

// Index of the first maximum (Max) / minimum (Min) of n values at(i); a NaN
// counts as larger than everything, as torch.argmax / argmin treat it.
template <Reduce Op, typename F>
inline int32_t ArgReduce(int n, F at) {
  int32_t best = 0;
  auto bv = at(0);
  for (int i = 1; i < n; ++i) {
    auto v = at(i);
    if (bv != bv) break;
    bool better = (v != v) || (Op == Reduce::Max ? v > bv : v < bv);
    if (better) {
      best = i;
      bv = v;
    }
  }
  return best;
}

template <Reduce Op, typename D, typename S>
inline void RowArgReduce(const char* name, D& dst, const S& src) {
  if (!Usable(name, dst, src)) return;
  int rows = src.GetValidRow();
  int cols = src.GetValidCol();
  if (dst.GetValidRow() < rows || dst.GetValidCol() < 1) {
    Raise(dst.core, FaultKind::ShapeMismatch, name, D::Loc, rows, dst.GetValidRow());
    return;
  }
  for (int r = 0; r < rows; ++r) {
    int32_t idx = cols > 0 ? ArgReduce<Op>(cols, [&](int c) { return Load(src.At(r, c)); }) : 0;
    dst.At(r, 0) = static_cast<typename D::DType>(idx);
  }
  Finish(dst, name);
  CountVector(name, dst, rows, TileOperand(src, rows * cols));
}

template <Reduce Op, typename D, typename S>
inline void ColArgReduce(const char* name, D& dst, const S& src) {
  if (!Usable(name, dst, src)) return;
  int rows = src.GetValidRow();
  int cols = src.GetValidCol();
  if (dst.GetValidCol() < cols || dst.GetValidRow() < 1) {
    Raise(dst.core, FaultKind::ShapeMismatch, name, D::Loc, cols, dst.GetValidCol());
    return;
  }
  for (int c = 0; c < cols; ++c) {
    int32_t idx = rows > 0 ? ArgReduce<Op>(rows, [&](int r) { return Load(src.At(r, c)); }) : 0;
    dst.At(0, c) = static_cast<typename D::DType>(idx);
  }
  Finish(dst, name);
  CountVector(name, dst, cols, TileOperand(src, rows * cols));
}

// Round a float to an integer-valued float by mode, as pto-isa's TCVT does
// on its way to an integer: CAST_NONE truncates (the plain C++ conversion),
// CAST_ODD rounds to the nearest integer with ties to the odd one.
inline double RoundToIntegral(double x, RoundMode mode) {
  switch (mode) {
    case RoundMode::CAST_NONE: return __builtin_trunc(x);
    case RoundMode::CAST_RINT: return __builtin_rint(x);
    case RoundMode::CAST_ROUND: return __builtin_round(x);
    case RoundMode::CAST_FLOOR: return __builtin_floor(x);
    case RoundMode::CAST_CEIL: return __builtin_ceil(x);
    case RoundMode::CAST_TRUNC: return __builtin_trunc(x);
    case RoundMode::CAST_ODD: {
      double below = __builtin_floor(x);
      double fraction = x - below;
      if (fraction != 0.5) return fraction > 0.5 ? below + 1.0 : below;
      return __builtin_fmod(below, 2.0) != 0.0 ? below : below + 1.0;
    }
  }
  return x;
}

// The next representable 16-bit float away from / toward +inf (sign-magnitude bits).
inline uint16_t StepUp16(uint16_t b) {
  if (b == 0x8000u) return 1;
  return (b & 0x8000u) ? static_cast<uint16_t>(b - 1) : static_cast<uint16_t>(b + 1);
}
inline uint16_t StepDown16(uint16_t b) {
  if (b == 0) return 0x8001u;
  return (b & 0x8000u) ? static_cast<uint16_t>(b + 1) : static_cast<uint16_t>(b - 1);
}

// float -> half / bfloat16 under any rounding mode: start from the
// nearest-even result and pick the neighbour the mode asks for.
template <typename F16>
inline F16 NarrowFloat(float x, RoundMode mode) {
  F16 nearest(x);
  if (x != x || mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_RINT) return nearest;
  float back = static_cast<float>(nearest);
  if (back == x) return nearest;
  uint16_t lower, upper;
  if (back > x) {
    upper = nearest.bits;
    lower = StepDown16(nearest.bits);
  } else {
    lower = nearest.bits;
    upper = StepUp16(nearest.bits);
  }
  uint16_t pick = nearest.bits;
  switch (mode) {
    case RoundMode::CAST_FLOOR: pick = lower; break;
    case RoundMode::CAST_CEIL: pick = upper; break;
    case RoundMode::CAST_TRUNC: pick = x > 0 ? lower : upper; break;
    case RoundMode::CAST_ROUND: {
      double lo = static_cast<float>(F16::FromBits(lower));
      double hi = static_cast<float>(F16::FromBits(upper));
      double dx = static_cast<double>(x);
      if (dx - lo == hi - dx) pick = x > 0 ? upper : lower;
      break;
    }
    case RoundMode::CAST_ODD: pick = (lower & 1u) ? lower : upper; break;
    default: break;
  }
  return F16::FromBits(pick);
}

template <typename To>
inline To SaturateInt(double v) {
  if (v != v) return 0;
  if (v >= static_cast<double>(Limits<To>::Max())) return Limits<To>::Max();
  if (v <= static_cast<double>(Limits<To>::Min())) return Limits<To>::Min();
  return static_cast<To>(v);
}

// One element of TCVT.
template <typename To, typename From>
inline To Convert(From v, RoundMode mode) {
  if constexpr (kSame<To, From>) {
    return v;
  } else if constexpr (kSame<To, bool>) {
    return Load(v) != static_cast<Compute<From>>(0);
  } else if constexpr (kSame<To, half> || kSame<To, bfloat16>) {
#ifdef PYPTO_TCVT_FLOAT_MODES_AS_PTO_ISA_CPU_SIM
    // pto-isa's CPU simulation rounds between float types to nearest whatever the mode, where the chip applies
    // it; the conformance tool builds this to show that a kernel differs from it only there.
    mode = RoundMode::CAST_RINT;
#endif
    if constexpr (kSame<From, double>) return NarrowFloat<To>(static_cast<float>(v), mode);
    else if constexpr (kIsFloat<From>) return NarrowFloat<To>(static_cast<float>(v), mode);
    else return NarrowFloat<To>(static_cast<float>(v), RoundMode::CAST_RINT);
  } else if constexpr (kIsFloat<To>) {
    return static_cast<To>(Load(v));
  } else if constexpr (kIsFloat<From>) {
    return SaturateInt<To>(RoundToIntegral(static_cast<double>(Load(v)), mode));
  } else {
    return static_cast<To>(v);  // integer narrowing wraps, as torch's .to() does
  }
}

// c[MR][NB] (row stride Ldb) += a[0..kb)[MR] (stride MB) x b[0..kb)[NB]
// (stride Ldb), the sums in registers.
template <typename AccT, int MR, int MB, int NB, int Ldb>
inline void MicroKernel(const AccT* __restrict a, const AccT* __restrict b, AccT* __restrict c, int kb) {
  using V = typename Lanes8<AccT>::type;
  constexpr int NV = NB / 8;
  static_assert(NB % 8 == 0, "NB is a multiple of the vector width");
  V acc[MR][NV];
  for (int q = 0; q < MR; ++q) {
    for (int v = 0; v < NV; ++v) __builtin_memcpy(&acc[q][v], c + q * Ldb + v * 8, sizeof(V));
  }
  for (int k = 0; k < kb; ++k) {
    V bv[NV];
    for (int v = 0; v < NV; ++v) __builtin_memcpy(&bv[v], b + k * Ldb + v * 8, sizeof(V));
    const AccT* ak = a + k * MB;
    for (int q = 0; q < MR; ++q) {
      const V av = V{} + ak[q];
      for (int v = 0; v < NV; ++v) acc[q][v] += av * bv[v];
    }
  }
  for (int q = 0; q < MR; ++q) {
    for (int v = 0; v < NV; ++v) __builtin_memcpy(c + q * Ldb + v * 8, &acc[q][v], sizeof(V));
  }
}

// dst[y][x] = src(row0 + y, col0 + x) converted to AccT for y < ny, x < nx
// (transposed when Transpose), visiting src in its storage order.
template <typename AccT, bool Transpose, int Ld, typename S>
inline void Pack(AccT* dst, const S& src, int row0, int col0, int rows, int cols) {
  const auto* x = src.data_;
  auto put = [&](int r, int c) {
    AccT v = static_cast<AccT>(Load(x[S::Index(row0 + r, col0 + c)]));
    if constexpr (Transpose) dst[c * Ld + r] = v;
    else dst[r * Ld + c] = v;
  };
  ForEach<S::kRowMajor>(rows, cols, put);
}

// The micro-kernel's shape: MR rows x NB columns of sums held in vector
// registers, sized so that the sums, one row of B and a broadcast fit the
// register file (16 vector registers with AVX2, 32 with AVX-512) instead of
// spilling to the stack.
#if defined(__AVX512F__)
inline constexpr int kMatmulMR = 6, kMatmulNB = 32;
#else
inline constexpr int kMatmulMR = 6, kMatmulNB = 16;
#endif

// C[M, N] (+)= A[M, K] @ B[K, N]. Columns go in chunks of NC; per chunk and
// K block, B's block is packed once (converted to AccT, zero-padded to whole
// micro-kernel widths), and each MB-row block of A once for all the chunk's
// micro-kernels; the sums of a row block stay in `c` across K. Each element
// is pto-isa's CPU simulation's (pto/cpu/TMatmul.hpp): the products summed
// from zero in order of k, each step one fused multiply-add, and only then
// added to what C held.
template <typename AccT, typename C, typename A, typename B>
inline void BlockedMatmul(C& acc, const A& left, const B& right, int m, int n, int k, bool accumulate) {
  constexpr int MR = kMatmulMR, NB = kMatmulNB, MB = 12 * MR, KB = 128;
  constexpr int NC = (C::kCols < 256 ? (C::kCols + NB - 1) / NB : 256 / NB) * NB;
  struct Blocks {
    AccT a[KB][MB];  // transposed: the micro-kernel reads MR consecutive rows per k
    AccT b[KB][NC];
    AccT c[MB][NC];
  };
  Blocks blk;
  using CT = typename C::DType;
  for (int j1 = 0; j1 < n; j1 += NC) {
    int nc = n - j1 < NC ? n - j1 : NC;
    int nc_padded = (nc + NB - 1) / NB * NB;
    for (int i0 = 0; i0 < m; i0 += MB) {
      int mb = m - i0 < MB ? m - i0 : MB;
      int mb_padded = (mb + MR - 1) / MR * MR;
      for (int i = 0; i < MB; ++i) {
        for (int j = 0; j < NC; ++j) blk.c[i][j] = AccT(0);
      }
      for (int k0 = 0; k0 < k; k0 += KB) {
        int kb = k - k0 < KB ? k - k0 : KB;
        Pack<AccT, true, MB>(&blk.a[0][0], left, i0, k0, mb, kb);
        for (int kk = 0; kk < kb; ++kk) {
          for (int i = mb; i < mb_padded; ++i) blk.a[kk][i] = AccT(0);
        }
        Pack<AccT, false, NC>(&blk.b[0][0], right, k0, j1, kb, nc);
        for (int kk = 0; kk < kb; ++kk) {
          for (int j = nc; j < nc_padded; ++j) blk.b[kk][j] = AccT(0);
        }
        for (int j0 = 0; j0 < nc; j0 += NB) {
          for (int i = 0; i < mb; i += MR) {
            MicroKernel<AccT, MR, MB, NB, NC>(&blk.a[0][i], &blk.b[0][j0], &blk.c[i][j0], kb);
          }
        }
      }
      if (accumulate) {
        ForEach<C::kRowMajor>(mb, nc, [&](int i, int j) {
          acc.At(i0 + i, j1 + j) = Store<CT>(static_cast<AccT>(Load(acc.At(i0 + i, j1 + j))) + blk.c[i][j]);
        });
      } else {
        ForEach<C::kRowMajor>(mb, nc, [&](int i, int j) { acc.At(i0 + i, j1 + j) = Store<CT>(blk.c[i][j]); });
      }
    }
  }
}

template <typename T>
struct MatmulAccum {
  using type = float;
};
template <>
struct MatmulAccum<int8_t> {
  using type = int32_t;
};
template <>
struct MatmulAccum<uint8_t> {
  using type = int32_t;
};

template <typename C, typename A, typename B>
inline void Matmul(const char* name, C& acc, const A& left, const B& right, bool accumulate,
                   const Operand* accumulates_from = nullptr) {
  static_assert(kSame<typename A::DType, typename B::DType>, "lhs and rhs have one dtype");
  using AccT = typename MatmulAccum<typename A::DType>::type;
  static_assert(kSame<typename C::DType, AccT>, "the accumulator is float (int32 for 8-bit integers)");
  if (!Usable(name, acc, left, right)) return;
  int m = acc.GetValidRow();
  int n = acc.GetValidCol();
  int k = left.GetValidCol();
  if (!Covers(left, m, k, name) || !Covers(right, k, n, name)) return;
  BlockedMatmul<AccT>(acc, left, right, m, n, k, accumulate);
  Finish(acc, name);
  CountMatmul(name, acc, left, right, m, n, k, accumulate, accumulates_from);
}

template <typename D, typename S>
inline void Copy(const char* name, D& dst, const S& src, int row0, int col0, bool hazards = true) {
  if (!Usable(name, dst, src)) return;
  int rows = dst.GetValidRow();
  int cols = dst.GetValidCol();
  if (row0 < 0 || row0 + rows > S::kRows) {
    Raise(src.core, FaultKind::ShapeMismatch, name, S::Loc, row0 + rows, S::kRows);
    return;
  }
  if (col0 < 0 || col0 + cols > S::kCols) {
    Raise(src.core, FaultKind::ShapeMismatch, name, S::Loc, col0 + cols, S::kCols);
    return;
  }
  using T = typename D::DType;
  auto put = [&](int r, int c) { dst.At(r, c) = Convert<T>(src.At(row0 + r, col0 + c), RoundMode::CAST_RINT); };
  if constexpr (D::kRowMajor == S::kRowMajor) {
    ForEach<D::kRowMajor>(rows, cols, put);
  } else {
    // A transposing copy, in square blocks that stay in cache on both sides.
    constexpr int kBlock = 16;
    for (int r0 = 0; r0 < rows; r0 += kBlock) {
      for (int c0 = 0; c0 < cols; c0 += kBlock) {
        int r1 = rows - r0 < kBlock ? rows : r0 + kBlock;
        int c1 = cols - c0 < kBlock ? cols : c0 + kBlock;
        for (int r = r0; r < r1; ++r) {
          for (int c = c0; c < c1; ++c) put(r, c);
        }
      }
    }
  }
  Finish(dst, name);
  CountMove(name, dst, src, rows * cols, hazards);
}

}  // namespace detail

// ---------------------------------------------------------------------------
// Data movement
// ---------------------------------------------------------------------------

// tile[valid region] = the global tensor's 2-D view [0, vr) x [0, vc).
template <typename TileT, typename GT>
inline void TLOAD(TileT& tile, const GT& gt) {
  static_assert(kSame<typename TileT::DType, typename GT::DType>, "TLOAD keeps the dtype");
  if (!detail::Usable(tile, "TLOAD")) return;
  int rows = tile.GetValidRow();
  int cols = tile.GetValidCol();
  if (rows > gt.Rows() || cols > gt.Cols()) {
    detail::Raise(tile.core, FaultKind::GlobalOutOfBounds, "TLOAD", TileT::Loc,
                  rows > gt.Rows() ? rows : cols, rows > gt.Rows() ? gt.Rows() : gt.Cols());
    return;
  }
  using T = typename TileT::DType;
  int64_t cs = gt.stride[4];
  if constexpr (TileT::kRowMajor) {
    for (int r = 0; r < rows; ++r) {
      const T* row = gt.data_ + gt.RowOffset(r);
      if (cs == 1) {
        __builtin_memcpy(&tile.At(r, 0), row, static_cast<size_t>(cols) * sizeof(T));
      } else {
        for (int c = 0; c < cols; ++c) tile.At(r, c) = row[c * cs];
      }
    }
  } else {
    // A column-major tile from row-major memory: bands of rows at a time, so
    // that each column of the band is one contiguous run in the tile.
    constexpr int kBand = 16;
    for (int r0 = 0; r0 < rows; r0 += kBand) {
      int band = rows - r0 < kBand ? rows - r0 : kBand;
      const T* src[kBand];
      for (int i = 0; i < band; ++i) src[i] = gt.data_ + gt.RowOffset(r0 + i);
      for (int c = 0; c < cols; ++c) {
        T* dst = &tile.At(r0, c);
        for (int i = 0; i < band; ++i) dst[i] = src[i][c * cs];
      }
    }
  }
  detail::Finish(tile, "TLOAD");
  detail::CountLoad("TLOAD", tile, static_cast<int64_t>(rows) * cols, gt, rows, cols);
}

// The global tensor's 2-D view [0, vr) x [0, vc) = tile[valid region],
// converted (round to nearest even) when the dtypes differ (Acc -> GM).
template <typename GT, typename TileT>
inline void TSTORE(GT& gt, const TileT& tile) {
  if (!detail::Usable(tile, "TSTORE")) return;
  int rows = tile.GetValidRow();
  int cols = tile.GetValidCol();
  if (rows > gt.Rows() || cols > gt.Cols()) {
    detail::Raise(tile.core, FaultKind::GlobalOutOfBounds, "TSTORE", TileT::Loc,
                  rows > gt.Rows() ? rows : cols, rows > gt.Rows() ? gt.Rows() : gt.Cols());
    return;
  }
  using G = typename GT::DType;
  int64_t cs = gt.stride[4];
  for (int r = 0; r < rows; ++r) {
    G* row = gt.data_ + gt.RowOffset(r);
    if constexpr (kSame<G, typename TileT::DType>) {
      if (cs == 1 && TileT::kRowMajor) {
        __builtin_memcpy(row, &tile.At(r, 0), static_cast<size_t>(cols) * sizeof(G));
        continue;
      }
    }
    for (int c = 0; c < cols; ++c) row[c * cs] = detail::Convert<G>(tile.At(r, c), RoundMode::CAST_RINT);
  }
  detail::CountStore("TSTORE", tile, static_cast<int64_t>(rows) * cols, static_cast<int64_t>(rows) * cols * sizeof(G),
                     gt, rows, cols);
}

// Copy between tiles of any spaces (Mat -> Left/Right, Acc -> Vec, Vec -> Vec,
// ...): dst[valid region] = src, converted to dst's dtype (nearest even).
template <typename D, typename S>
inline void TMOV(D& dst, const S& src) {
  if (!detail::Usable("TMOV", dst, src)) return;
  if (!detail::Covers(src, dst.GetValidRow(), dst.GetValidCol(), "TMOV")) return;
  detail::Copy("TMOV", dst, src, 0, 0);
}

// dst[valid region] = src[row .. , col .. ]; the window must lie inside src's static shape.
template <typename D, typename S>
inline void TEXTRACT(D& dst, const S& src, int row, int col) {
  detail::Copy("TEXTRACT", dst, src, row, col);
}

// dst[r, c] = src[c, r] over dst's valid region.
template <typename D, typename S>
inline void TTRANS(D& dst, const S& src) {
  if (!detail::Usable("TTRANS", dst, src)) return;
  int rows = dst.GetValidRow();
  int cols = dst.GetValidCol();
  if (!detail::Covers(src, cols, rows, "TTRANS")) return;
  detail::ForEach<D::kRowMajor>(rows, cols, [&](int r, int c) { dst.At(r, c) = src.At(c, r); });
  detail::Finish(dst, "TTRANS");
  detail::CountVector("TTRANS", dst, rows * cols, detail::TileOperand(src, rows * cols));
}
template <typename D, typename S, typename Tmp>
inline void TTRANS(D& dst, const S& src, Tmp&) {
  TTRANS(dst, src);
}

// dst = src on src's valid region, dst's pad value on the rest of dst's
// valid region; dst's Pad must not be Null.
template <typename D, typename S>
inline void TFILLPAD(D& dst, const S& src) {
  static_assert(D::kPad != PadValue::Null, "TFILLPAD needs a destination with a pad value");
  if (!detail::Usable("TFILLPAD", dst, src)) return;
  using T = typename D::DType;
  const T pad = PadOf<T, D::kPad>();
  int rows = dst.GetValidRow();
  int cols = dst.GetValidCol();
  int sr = src.GetValidRow();
  int sc = src.GetValidCol();
  detail::ForEach<D::kRowMajor>(rows, cols, [&](int r, int c) {
    dst.At(r, c) = (r < sr && c < sc) ? detail::Convert<T>(src.At(r, c), RoundMode::CAST_RINT) : pad;
  });
  detail::Finish(dst, "TFILLPAD");
  detail::CountVector("TFILLPAD", dst, rows * cols, detail::TileOperand(src, detail::ValidElements(src)));
}

// dst = [src0 | src1] along columns: src0's valid columns, then src1's;
// both must cover dst's valid rows, and dst's valid columns must equal the sum.
template <typename D, typename S0, typename S1>
inline void TCONCAT(D& dst, const S0& src0, const S1& src1) {
  if (!detail::Usable("TCONCAT", dst, src0, src1)) return;
  int rows = dst.GetValidRow();
  int c0 = src0.GetValidCol();
  int c1 = src1.GetValidCol();
  if (c0 + c1 != dst.GetValidCol()) {
    detail::Raise(dst.core, FaultKind::ShapeMismatch, "TCONCAT", D::Loc, c0 + c1, dst.GetValidCol());
    return;
  }
  if (!detail::Covers(src0, rows, c0, "TCONCAT") || !detail::Covers(src1, rows, c1, "TCONCAT")) return;
  using T = typename D::DType;
  detail::ForEach<D::kRowMajor>(rows, c0 + c1, [&](int r, int c) {
    dst.At(r, c) = c < c0 ? detail::Convert<T>(src0.At(r, c), RoundMode::CAST_RINT)
                          : detail::Convert<T>(src1.At(r, c - c0), RoundMode::CAST_RINT);
  });
  detail::Finish(dst, "TCONCAT");
  detail::CountVector("TCONCAT", dst, rows * (c0 + c1), detail::TileOperand(src0, rows * c0), detail::TileOperand(src1, rows * c1));
}

// ---------------------------------------------------------------------------
// Ordering

// ---------------------------------------------------------------------------
// Element-wise, tile op tile
// ---------------------------------------------------------------------------
template <typename D, typename A, typename B>
inline void TADD(D& dst, const A& a, const B& b) {
  detail::Binary("TADD", dst, a, b, [](auto x, auto y) { return x + y; });
}
template <typename D, typename A, typename B>
inline void TSUB(D& dst, const A& a, const B& b) {
  detail::Binary("TSUB", dst, a, b, [](auto x, auto y) { return x - y; });
}
template <typename D, typename A, typename B>
inline void TMUL(D& dst, const A& a, const B& b) {
  detail::Binary("TMUL", dst, a, b, [](auto x, auto y) { return x * y; });
}
template <typename D, typename A, typename B>
inline void TDIV(D& dst, const A& a, const B& b) {
  detail::Binary("TDIV", dst, a, b, [](auto x, auto y) { return detail::Div(x, y); });
}
template <typename D, typename A, typename B>
inline void TMAX(D& dst, const A& a, const B& b) {
  detail::Binary("TMAX", dst, a, b, [](auto x, auto y) { return detail::Max(x, y); });
}
template <typename D, typename A, typename B>
inline void TMIN(D& dst, const A& a, const B& b) {
  detail::Binary("TMIN", dst, a, b, [](auto x, auto y) { return detail::Min(x, y); });
}

// ---------------------------------------------------------------------------
// Element-wise, tile op scalar (the scalar in the tile's compute type)
// ---------------------------------------------------------------------------
template <typename D, typename S>
inline void TADDS(D& dst, const S& src, Compute<typename S::DType> s) {
  detail::Unary("TADDS", dst, src, [s](auto x) { return x + s; });
}
template <typename D, typename S>
inline void TSUBS(D& dst, const S& src, Compute<typename S::DType> s) {
  detail::Unary("TSUBS", dst, src, [s](auto x) { return x - s; });
}
template <typename D, typename S>
inline void TMULS(D& dst, const S& src, Compute<typename S::DType> s) {
  detail::Unary("TMULS", dst, src, [s](auto x) { return x * s; });
}
template <typename D, typename S>
inline void TDIVS(D& dst, const S& src, Compute<typename S::DType> s) {
  detail::Unary("TDIVS", dst, src, [s](auto x) { return detail::Div(x, s); });
}
template <typename D, typename S>
inline void TMAXS(D& dst, const S& src, Compute<typename S::DType> s) {
  detail::Unary("TMAXS", dst, src, [s](auto x) { return detail::Max(x, s); });
}
template <typename D, typename S>
inline void TMINS(D& dst, const S& src, Compute<typename S::DType> s) {
  detail::Unary("TMINS", dst, src, [s](auto x) { return detail::Min(x, s); });
}
// dst[valid region] = s.
template <typename D>
inline void TEXPANDS(D& dst, Compute<typename D::DType> s) {
  if (!detail::Usable(dst, "TEXPANDS")) return;
  using T = typename D::DType;
  const T v = detail::Store<T>(s);
  detail::ForEach<D::kRowMajor>(dst.GetValidRow(), dst.GetValidCol(), [&](int r, int c) { dst.At(r, c) = v; });
  detail::Finish(dst, "TEXPANDS");
  detail::CountVector("TEXPANDS", dst, detail::ValidElements(dst));
}

// ---------------------------------------------------------------------------
// Element-wise, unary (float math in float, exp, log and rsqrt in double as
// pto-isa's CPU simulation; half/bf16 computed as float)
// ---------------------------------------------------------------------------
template <typename D, typename S>
inline void TEXP(D& dst, const S& src) {
  detail::Exp("TEXP", dst, src);
}
template <typename D, typename S>
inline void TLOG(D& dst, const S& src) {
  detail::Unary("TLOG", dst, src, [](auto x) { return detail::Log(x); });
}
template <typename D, typename S>
inline void TSQRT(D& dst, const S& src) {
  detail::Unary("TSQRT", dst, src, [](auto x) { return detail::Sqrt(x); });
}
template <typename D, typename S>
inline void TRSQRT(D& dst, const S& src) {
  // In double and rounded once, as pto-isa's CPU simulation computes it.
  detail::Unary("TRSQRT", dst, src,
                [](auto x) { return static_cast<decltype(x)>(1.0 / __builtin_sqrt(static_cast<double>(x))); });
}
template <typename D, typename S>
inline void TRECIP(D& dst, const S& src) {
  detail::Unary("TRECIP", dst, src, [](auto x) { return detail::Div(decltype(x)(1), x); });
}
template <typename D, typename S>
inline void TABS(D& dst, const S& src) {
  detail::Unary("TABS", dst, src, [](auto x) { return detail::Abs(x); });
}
template <typename D, typename S>
inline void TNEG(D& dst, const S& src) {
  detail::Unary("TNEG", dst, src, [](auto x) { return static_cast<decltype(x)>(-x); });
}
template <typename D, typename S>
inline void TRELU(D& dst, const S& src) {
  detail::Unary("TRELU", dst, src, [](auto x) { return x > decltype(x)(0) ? x : decltype(x)(0); });
}

template <typename D, typename S>
inline void TLRELU(D& dst, const S& src, Compute<typename S::DType> slope) {
  detail::Unary("TLRELU", dst, src, [slope](auto x) { return x > decltype(x)(0) ? x : x * slope; });
}

// Remainders: TREM has the divisor's sign (torch.remainder), TFMOD the
// dividend's (torch.fmod). Integer x % 0 is 0. The scratch tile is unused.
template <typename D, typename A, typename B>
inline void TREM(D& dst, const A& a, const B& b) {
  detail::Binary("TREM", dst, a, b, [](auto x, auto y) { return detail::Rem(x, y); });
}
template <typename D, typename A, typename B, typename Tmp>
inline void TREM(D& dst, const A& a, const B& b, Tmp&) {
  TREM(dst, a, b);
}
template <typename D, typename S>
inline void TREMS(D& dst, const S& src, Compute<typename S::DType> s) {
  detail::Unary("TREMS", dst, src, [s](auto x) { return detail::Rem(x, s); });
}
template <typename D, typename S, typename Tmp>
inline void TREMS(D& dst, const S& src, Compute<typename S::DType> s, Tmp&) {
  TREMS(dst, src, s);
}
template <typename D, typename A, typename B>
inline void TFMOD(D& dst, const A& a, const B& b) {
  detail::Binary("TFMOD", dst, a, b, [](auto x, auto y) { return detail::Fmod(x, y); });
}
template <typename D, typename S>
inline void TFMODS(D& dst, const S& src, Compute<typename S::DType> s) {
  detail::Unary("TFMODS", dst, src, [s](auto x) { return detail::Fmod(x, s); });
}

// ---------------------------------------------------------------------------
// Bitwise (integer tiles)
// ---------------------------------------------------------------------------
#define PTO_BITWISE_OPS(NAME, EXPR)                                                                    \
  template <typename D, typename A, typename B>                                                        \
  inline void NAME(D& dst, const A& a, const B& b) {                                     \
    static_assert(!kIsFloat<typename A::DType>, #NAME " takes integer tiles");                         \
    detail::Binary(#NAME, dst, a, b, [](auto x, auto y) { return EXPR; });                       \
  }                                                                                                    \
  template <typename D, typename S>                                                                    \
  inline void NAME##S(D& dst, const S& src, Compute<typename S::DType> s) {              \
    static_assert(!kIsFloat<typename S::DType>, #NAME "S takes integer tiles");                        \
    detail::Unary(#NAME "S", dst, src, [s](auto x) { auto y = s; return EXPR; });                \
  }
PTO_BITWISE_OPS(TAND, static_cast<decltype(x)>(x & y))
PTO_BITWISE_OPS(TOR, static_cast<decltype(x)>(x | y))
PTO_BITWISE_OPS(TXOR, static_cast<decltype(x)>(x ^ y))
PTO_BITWISE_OPS(TSHL, detail::ShiftLeft(x, y))
PTO_BITWISE_OPS(TSHR, detail::ShiftRight(x, y))
#undef PTO_BITWISE_OPS
// The registry's xor / xors carry a scratch tile; it is unused.
template <typename D, typename A, typename B, typename Tmp>
inline void TXOR(D& dst, const A& a, const B& b, Tmp&) {
  TXOR(dst, a, b);
}
template <typename D, typename S, typename Tmp>
inline void TXORS(D& dst, const S& src, Compute<typename S::DType> s, Tmp&) {
  TXORS(dst, src, s);
}
template <typename D, typename S>
inline void TNOT(D& dst, const S& src) {
  static_assert(!kIsFloat<typename S::DType>, "TNOT takes integer tiles");
  detail::Unary("TNOT", dst, src, [](auto x) { return static_cast<decltype(x)>(~x); });
}

// ---------------------------------------------------------------------------
// Compare and select
// ---------------------------------------------------------------------------
// Packed predicate masks, as on the chip: dst is a uint8_t tile whose row r
// holds bit (c % 8) of byte (c / 8) = a(r, c) <mode> b(r, c). Every byte of
// dst is written; bits and bytes past the compared valid region are zero.
namespace detail {
template <typename D, typename A, typename F>
inline void PackCompare(const char* name, D& dst, const A& a, F compare) {
  static_assert(kSame<typename D::DType, uint8_t>, "a compare writes a uint8_t packed mask");
  int rows = a.GetValidRow();
  int cols = a.GetValidCol();
  int bytes = (cols + 7) / 8;
  if (dst.GetValidRow() < rows || dst.GetValidCol() < bytes) {
    Raise(dst.core, FaultKind::ShapeMismatch, name, D::Loc, dst.GetValidRow() < rows ? rows : bytes,
          dst.GetValidRow() < rows ? dst.GetValidRow() : dst.GetValidCol());
    return;
  }
  for (int r = 0; r < D::kRows; ++r) {
    for (int k = 0; k < D::kCols; ++k) dst.At(r, k) = 0;
  }
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      if (compare(r, c)) dst.At(r, c / 8) = static_cast<uint8_t>(dst.At(r, c / 8) | (1u << (c % 8)));
    }
  }
  CountVector(name, dst, static_cast<int64_t>(D::kRows) * D::kCols, TileOperand(a, static_cast<int64_t>(rows) * cols));
}
}  // namespace detail

template <typename D, typename A, typename B>
inline void TCMP(D& dst, const A& a, const B& b, CmpMode mode) {
  if (!detail::Usable("TCMP", dst, a, b) || !detail::Covers(b, a.GetValidRow(), a.GetValidCol(), "TCMP")) return;
  detail::PackCompare("TCMP", dst, a, [&](int r, int c) {
    return detail::Compare(detail::Load(a.At(r, c)), detail::Load(b.At(r, c)), mode);
  });
}
template <typename D, typename A>
inline void TCMPS(D& dst, const A& a, Compute<typename A::DType> s, CmpMode mode) {
  if (!detail::Usable("TCMPS", dst, a)) return;
  detail::PackCompare("TCMPS", dst, a, [&](int r, int c) { return detail::Compare(detail::Load(a.At(r, c)), s, mode); });
}
// dst = mask bit set ? a : b, mask in TCMP's packing; each dst row reads its own mask row.
template <typename D, typename M, typename A, typename B>
inline void TSEL(D& dst, const M& mask, const A& a, const B& b) {
  static_assert(kSame<typename M::DType, uint8_t>, "TSEL takes a uint8_t packed mask");
  if (!detail::Usable("TSEL", dst, mask, a, b)) return;
  int rows = dst.GetValidRow();
  int cols = dst.GetValidCol();
  if (!detail::Covers(mask, rows, (cols + 7) / 8, "TSEL") || !detail::Covers(a, rows, cols, "TSEL") ||
      !detail::Covers(b, rows, cols, "TSEL")) {
    return;
  }
  detail::ForEach<D::kRowMajor>(rows, cols, [&](int r, int c) {
    dst.At(r, c) = ((mask.At(r, c / 8) >> (c % 8)) & 1u) != 0 ? a.At(r, c) : b.At(r, c);
  });
  detail::Finish(dst, "TSEL");
  detail::CountVector("TSEL", dst, rows * cols, detail::TileOperand(mask, rows * ((cols + 7) / 8)),
                      detail::TileOperand(a, rows * cols), detail::TileOperand(b, rows * cols));
}
template <typename D, typename M, typename A, typename B, typename Tmp>
inline void TSEL(D& dst, const M& mask, const A& a, const B& b, Tmp&) {
  TSEL(dst, mask, a, b);
}

// ---------------------------------------------------------------------------
// Reductions over src's valid region (sums in float, int64 for integers).
// Row: dst [M, 1]. Col: dst [1, N]. The scratch tile is accepted and unused.
// ---------------------------------------------------------------------------
#define PTO_ROW_REDUCTION(NAME, OP)                                          \
  template <typename D, typename S>                                          \
  inline void NAME(D& dst, const S& src) {                     \
    detail::RowReduce<detail::Reduce::OP>(#NAME, dst, src);             \
  }                                                                          \
  template <typename D, typename S, typename Tmp>                            \
  inline void NAME(D& dst, const S& src, Tmp&) {               \
    detail::RowReduce<detail::Reduce::OP>(#NAME, dst, src);             \
  }
PTO_ROW_REDUCTION(TROWSUM, Sum)
PTO_ROW_REDUCTION(TROWMAX, Max)
PTO_ROW_REDUCTION(TROWMIN, Min)
PTO_ROW_REDUCTION(TROWPROD, Prod)
#undef PTO_ROW_REDUCTION

// TCOLSUM's isBinary picks the chip's summation order (a binary tree over the
// scratch tile); the result is the same column sum either way.
template <typename D, typename S>
inline void TCOLSUM(D& dst, const S& src) {
  detail::ColReduce<detail::Reduce::Sum>("TCOLSUM", dst, src);
}
template <typename D, typename S, typename Tmp>
inline void TCOLSUM(D& dst, const S& src, Tmp&, bool /*isBinary*/) {
  detail::ColReduce<detail::Reduce::Sum>("TCOLSUM", dst, src);
}

#define PTO_COL_REDUCTION(NAME, OP)                                          \
  template <typename D, typename S>                                          \
  inline void NAME(D& dst, const S& src) {                     \
    detail::ColReduce<detail::Reduce::OP>(#NAME, dst, src);             \
  }                                                                          \
  template <typename D, typename S, typename Tmp>                            \
  inline void NAME(D& dst, const S& src, Tmp&) {               \
    detail::ColReduce<detail::Reduce::OP>(#NAME, dst, src);             \
  }
PTO_COL_REDUCTION(TCOLMAX, Max)
PTO_COL_REDUCTION(TCOLMIN, Min)
PTO_COL_REDUCTION(TCOLPROD, Prod)
#undef PTO_COL_REDUCTION

// Index (int32 / uint32 dst) of the first maximum / minimum of each row
// ([M, 1] dst) or column ([1, N] dst) of src's valid region; NaN wins.
#define PTO_ARG_REDUCTION(NAME, HELPER, OP)                                  \
  template <typename D, typename S>                                          \
  inline void NAME(D& dst, const S& src) {                     \
    detail::HELPER<detail::Reduce::OP>(#NAME, dst, src);                \
  }                                                                          \
  template <typename D, typename S, typename Tmp>                            \
  inline void NAME(D& dst, const S& src, Tmp&) {               \
    detail::HELPER<detail::Reduce::OP>(#NAME, dst, src);                \
  }
PTO_ARG_REDUCTION(TROWARGMAX, RowArgReduce, Max)
PTO_ARG_REDUCTION(TROWARGMIN, RowArgReduce, Min)
PTO_ARG_REDUCTION(TCOLARGMAX, ColArgReduce, Max)
PTO_ARG_REDUCTION(TCOLARGMIN, ColArgReduce, Min)
#undef PTO_ARG_REDUCTION

// ---------------------------------------------------------------------------
// Broadcasts: row_vec is [M, 1] (column 0 read), col_vec is [1, N] (row 0 read)
// ---------------------------------------------------------------------------
template <typename D, typename V>
inline void TROWEXPAND(D& dst, const V& row_vec) {
  detail::RowExpand("TROWEXPAND", dst, dst, row_vec, [](auto, auto v) { return v; });
}
template <typename D, typename V>
inline void TCOLEXPAND(D& dst, const V& col_vec) {
  detail::ColExpand("TCOLEXPAND", dst, dst, col_vec, [](auto, auto v) { return v; });
}

#define PTO_EXPAND_OPS(PREFIX, HELPER)                                                                           \
  template <typename D, typename S, typename V>                                                                  \
  inline void PREFIX##ADD(D& dst, const S& src, const V& vec) {                                    \
    detail::HELPER(#PREFIX "ADD", dst, src, vec, [](auto x, auto v) { return x + v; });                     \
  }                                                                                                              \
  template <typename D, typename S, typename V>                                                                  \
  inline void PREFIX##SUB(D& dst, const S& src, const V& vec) {                                    \
    detail::HELPER(#PREFIX "SUB", dst, src, vec, [](auto x, auto v) { return x - v; });                     \
  }                                                                                                              \
  template <typename D, typename S, typename V>                                                                  \
  inline void PREFIX##MUL(D& dst, const S& src, const V& vec) {                                    \
    detail::HELPER(#PREFIX "MUL", dst, src, vec, [](auto x, auto v) { return x * v; });                     \
  }                                                                                                              \
  template <typename D, typename S, typename V>                                                                  \
  inline void PREFIX##DIV(D& dst, const S& src, const V& vec) {                                    \
    detail::HELPER(#PREFIX "DIV", dst, src, vec, [](auto x, auto v) { return detail::Div(x, v); });         \
  }                                                                                                              \
  template <typename D, typename S, typename V>                                                                  \
  inline void PREFIX##MAX(D& dst, const S& src, const V& vec) {                                    \
    detail::HELPER(#PREFIX "MAX", dst, src, vec, [](auto x, auto v) { return detail::Max(x, v); });         \
  }                                                                                                              \
  template <typename D, typename S, typename V>                                                                  \
  inline void PREFIX##MIN(D& dst, const S& src, const V& vec) {                                    \
    detail::HELPER(#PREFIX "MIN", dst, src, vec, [](auto x, auto v) { return detail::Min(x, v); });         \
  }                                                                                                              \
  template <typename D, typename S, typename V>                                                                  \
  inline void PREFIX##EXPDIF(D& dst, const S& src, const V& vec) {                                 \
    detail::HELPER##ExpDif(#PREFIX "EXPDIF", dst, src, vec);                                                \
  }
PTO_EXPAND_OPS(TROWEXPAND, RowExpand)
PTO_EXPAND_OPS(TCOLEXPAND, ColExpand)
#undef PTO_EXPAND_OPS

// ---------------------------------------------------------------------------
// Conversion
// ---------------------------------------------------------------------------
// dst = src converted to dst's dtype. Float -> integer rounds by mode and
// saturates (NaN -> 0); float -> half/bf16 rounds by mode (none/rint: nearest
// even); integer -> integer wraps; anything -> bool is `!= 0`.
template <typename D, typename S>
inline void TCVT(D& dst, const S& src, RoundMode mode = RoundMode::CAST_RINT) {
  if (!detail::Usable("TCVT", dst, src)) return;
  int rows = dst.GetValidRow();
  int cols = dst.GetValidCol();
  if (!detail::Covers(src, rows, cols, "TCVT")) return;
  using T = typename D::DType;
  T* d = dst.data_;
  const auto* x = src.data_;
  // The common cases with the mode as a constant, so that the loop vectorizes.
  if (mode == RoundMode::CAST_RINT) {
    detail::ForEach<D::kRowMajor>(rows, cols, [&](int r, int c) {
      d[D::Index(r, c)] = detail::Convert<T>(x[S::Index(r, c)], RoundMode::CAST_RINT);
    });
  } else if (mode == RoundMode::CAST_NONE) {
    detail::ForEach<D::kRowMajor>(rows, cols, [&](int r, int c) {
      d[D::Index(r, c)] = detail::Convert<T>(x[S::Index(r, c)], RoundMode::CAST_NONE);
    });
  } else {
    detail::ForEach<D::kRowMajor>(
        rows, cols, [&](int r, int c) { d[D::Index(r, c)] = detail::Convert<T>(x[S::Index(r, c)], mode); });
  }
  detail::Finish(dst, "TCVT");
  detail::CountVector("TCVT", dst, rows * cols, detail::TileOperand(src, rows * cols));
}

// ---------------------------------------------------------------------------
// Cube: acc [M, N] = left [M, K] @ right [K, N]; M, N from acc's valid
// region, K from left's valid cols. float accumulation for half / bf16 /
// float operands, int32 for int8 / uint8.
// ---------------------------------------------------------------------------
template <typename C, typename A, typename B>
inline void TMATMUL(C& acc, const A& left, const B& right) {
  detail::Matmul("TMATMUL", acc, left, right, false);
}
// acc += left @ right.
template <typename C, typename A, typename B>
inline void TMATMUL_ACC(C& acc, const A& left, const B& right) {
  detail::Matmul("TMATMUL_ACC", acc, left, right, true);
}
// c_out = c_in + left @ right (the four-operand form; c_out may be c_in).
template <typename C, typename CIn, typename A, typename B>
inline void TMATMUL_ACC(C& c_out, const CIn& c_in, const A& left, const B& right) {
  if (static_cast<const void*>(&c_out) == static_cast<const void*>(&c_in)) {
    detail::Matmul("TMATMUL_ACC", c_out, left, right, true);
    return;
  }
  if (!detail::Covers(c_in, c_out.GetValidRow(), c_out.GetValidCol(), "TMATMUL_ACC")) return;
  detail::Copy("TMATMUL_ACC", c_out, c_in, 0, 0, false);
  if (c_out.core && c_out.core->faulted()) return;
  const Operand from = detail::TileOperand(c_in, detail::ValidElements(c_out));
  detail::Matmul("TMATMUL_ACC", c_out, left, right, true, &from);
}
// acc = left @ right + bias (bias [1, N], row 0 read).
template <typename C, typename A, typename B, typename Bias>
inline void TMATMUL_BIAS(C& acc, const A& left, const B& right, const Bias& bias) {
  if (!detail::Usable("TMATMUL_BIAS", bias, acc)) return;
  int n = acc.GetValidCol();
  if (!detail::Covers(bias, 1, n, "TMATMUL_BIAS")) return;
  using CT = typename C::DType;
  for (int r = 0; r < acc.GetValidRow(); ++r) {
    for (int c = 0; c < n; ++c) acc.At(r, c) = detail::Convert<CT>(bias.At(0, c), RoundMode::CAST_RINT);
  }
  detail::CountMove("TMATMUL_BIAS", acc, bias, n, false);
  const Operand from = detail::TileOperand(bias, n);
  detail::Matmul("TMATMUL_BIAS", acc, left, right, true, &from);
}

}  // namespace pto
