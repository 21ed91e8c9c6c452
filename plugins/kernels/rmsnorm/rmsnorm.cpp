// rmsnorm_fp32: out[r, c] = x[r, c] / sqrt(mean(x[r, :]^2) + eps) * gamma[0, c],
// FP32, on a vector core (AIV). Fused: each block of kBlockRows rows is
// loaded once; the squares go to a scratch tile for the row sums, the
// scaling by 1/rms and by gamma run on the block in place, then one store.
// gamma is loaded once for the whole tensor.
//
// A row lives whole in one tile: the block, the squares and the scratch tile
// TROWSUM reduces through (a2a3) are kBlockRows x kMaxCols each; with gamma
// they take 112 KiB of the 184 KiB Vec buffer. A tensor wider than kMaxCols
// is a ValidShape fault of the first instruction that uses the block, which
// the runtime reports with the kernel's name; the last block may have fewer
// rows.
//
// PTO-ISA C++ (<pto/pto-inst.hpp>): it compiles against PyPTO's simulator
// and against the real pto-isa headers alike.
#include <stdint.h>

#include <pto/pto-inst.hpp>

#include "pypto/runtime/kernel_args.h"

#ifndef PYPTO_LOC
#define PYPTO_LOC(line)
#endif

using namespace pto;

namespace {

constexpr int kBlockRows = 2;
constexpr int kMaxCols = 4096;
// A column tile's rows (and a row tile's columns) fill at least 32 bytes, as the ISA requires.
constexpr int kStatRows = 8;
constexpr uint64_t kRowsBytes = kBlockRows * kMaxCols * sizeof(float);
constexpr uint64_t kGammaBytes = kMaxCols * sizeof(float);

using RowsTile = Tile<TileType::Vec, float, kBlockRows, kMaxCols, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
using GammaTile = Tile<TileType::Vec, float, 1, kMaxCols, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
// One value per row, [rows, 1]: what TROWSUM writes and TROWEXPANDMUL broadcasts.
using RowStatTile = Tile<TileType::Vec, float, kStatRows, 1, BLayout::ColMajor, DYNAMIC, DYNAMIC>;
// The same values as one row, [1, rows], for the element-wise ops, which take row-major tiles only.
using RowStatLine = Tile<TileType::Vec, float, 1, kStatRows, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
using Rows = GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, DYNAMIC, DYNAMIC>>;

// `rows` whole rows of a 2-D tensor from row `row` on.
__aicore__ Rows RowsAt(__gm__ PyptoRtTensorDesc* t, int64_t row, int64_t rows) {
  __gm__ float* first = reinterpret_cast<__gm__ float*>(t->data) + row * t->strides[0];
  return Rows(first, Rows::Shape(rows, t->shape[1]), Rows::Stride(t->strides[0], t->strides[1]));
}

struct Scratch {
  RowsTile block;
  RowsTile squares;
  RowsTile reduce;
  RowStatTile inv_rms;       // 1 / rms of each row...
  RowStatLine inv_rms_line;  // ...and the same memory as a row

  __aicore__ Scratch(int rows, int cols)
      : block(rows, cols), squares(rows, cols), reduce(rows, cols), inv_rms(rows, 1), inv_rms_line(1, rows) {
    TASSIGN(block, 0x0);
    TASSIGN(squares, kRowsBytes);
    TASSIGN(reduce, 2 * kRowsBytes);
    TASSIGN(inv_rms, 3 * kRowsBytes + kGammaBytes);
    TASSIGN(inv_rms_line, 3 * kRowsBytes + kGammaBytes);
  }
};

__aicore__ void RmsNormBlock(__gm__ PyptoRtTensorDesc* x, __gm__ PyptoRtTensorDesc* out, GammaTile& gamma, float eps,
                             int64_t row, int rows) {
  const int cols = static_cast<int>(x->shape[1]);
  Scratch s(rows, cols);
  auto x_rows = RowsAt(x, row, rows);
  TLOAD(s.block, x_rows);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  // Each step reads what the one before it wrote: the vector pipe must finish it first.
  TMUL(s.squares, s.block, s.block);
  pipe_barrier(PIPE_V);
  TROWSUM(s.inv_rms, s.squares, s.reduce);
  pipe_barrier(PIPE_V);
  TMULS(s.inv_rms_line, s.inv_rms_line, 1.0f / static_cast<float>(cols));
  pipe_barrier(PIPE_V);
  TADDS(s.inv_rms_line, s.inv_rms_line, eps);
  pipe_barrier(PIPE_V);
  TRSQRT(s.inv_rms_line, s.inv_rms_line);
  pipe_barrier(PIPE_V);
  TROWEXPANDMUL(s.block, s.block, s.inv_rms);
  pipe_barrier(PIPE_V);
  TCOLEXPANDMUL(s.block, s.block, gamma);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  auto out_rows = RowsAt(out, row, rows);
  TSTORE(out_rows, s.block);
  // The next block loads into this one's tile once the store has read it.
  set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
  wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
}

__aicore__ void RmsNorm(__gm__ PyptoRtTensorDesc* x, __gm__ PyptoRtTensorDesc* gamma_desc,
                        __gm__ PyptoRtTensorDesc* out, float eps) {
  GammaTile gamma(1, static_cast<int>(gamma_desc->shape[1]));
  TASSIGN(gamma, 3 * kRowsBytes);
  auto gamma_row = RowsAt(gamma_desc, 0, 1);
  TLOAD(gamma, gamma_row);
  const int64_t total = x->shape[0];
  for (int64_t row = 0; row < total; row += kBlockRows) {
    const int rows = static_cast<int>(total - row < kBlockRows ? total - row : kBlockRows);
    RmsNormBlock(x, out, gamma, eps, row, rows);
  }
}

}  // namespace

// Slots: the descriptors of x, gamma, out, then the bits of the scalar eps (manifest order).
extern "C" __aicore__ void kernel_entry(__gm__ int64_t* args) {
  union {
    uint64_t u64;
    float val;
  } eps;
  eps.u64 = static_cast<uint64_t>(args[3]);
  RmsNorm(reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args[0]), reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args[1]),
          reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args[2]), eps.val);
}
