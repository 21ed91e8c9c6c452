// rmsnorm_fp32: out[r, c] = x[r, c] / sqrt(mean(x[r, :]^2) + eps) * gamma[0, c],
// FP32, on a vector core (AIV). Fused: each block of kBlockRows rows is
// loaded once; the squares go to a scratch tile for the row sums, the
// scaling by 1/rms and by gamma run on the block in place, then one store.
// gamma is loaded once for the whole tensor.
//
// A row lives whole in one tile: two kBlockRows x kMaxCols tiles and gamma
// take 144 KiB of the 184 KiB Vec buffer. A tensor wider than kMaxCols is a
// ValidShape fault of the tile's constructor, reported with this file and
// line; the last block may have fewer rows.
#include "pypto/isa/kernel_abi.h"

using namespace pto;

namespace {

constexpr int kBlockRows = 4;
constexpr int kMaxCols = 4096;
constexpr uint64_t kRowsBytes = kBlockRows * kMaxCols * sizeof(float);

using RowsTile = Tile<TileType::Vec, float, kBlockRows, kMaxCols, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
using GammaTile = Tile<TileType::Vec, float, 1, kMaxCols, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
using RowStatTile = Tile<TileType::Vec, float, kBlockRows, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
using Window = GlobalTensor<float, Shape<DYNAMIC, DYNAMIC>, Stride<DYNAMIC, DYNAMIC>>;

// `rows` whole rows of a 2-D tensor from row `row` on.
Window RowsAt(const PyptoRtTensorDesc& t, int64_t row, int64_t rows) {
  float* first = static_cast<float*>(t.data) + row * t.strides[0];
  return Window(first, DynDims{{1, 1, 1, rows, t.shape[1]}}, DescStrides(t));
}

struct Scratch {
  RowsTile block;
  RowsTile squares;
  RowStatTile inv_rms;

  Scratch(int rows, int cols) : block(rows, cols), squares(rows, cols), inv_rms(rows, 1) {
    TASSIGN(block, 0x0);
    TASSIGN(squares, kRowsBytes);
    TASSIGN(inv_rms, 2 * kRowsBytes + kMaxCols * sizeof(float));
  }
};

void RmsNormBlock(const PyptoRtTensorDesc& x, const PyptoRtTensorDesc& out, const GammaTile& gamma, float eps,
                  int64_t row, int rows) {
  const int cols = static_cast<int>(x.shape[1]);
  Scratch s(rows, cols);
  auto x_rows = RowsAt(x, row, rows);
  TLOAD(s.block, x_rows);
  TMUL(s.squares, s.block, s.block);
  TROWSUM(s.inv_rms, s.squares);
  TMULS(s.inv_rms, s.inv_rms, 1.0f / static_cast<float>(cols));
  TADDS(s.inv_rms, s.inv_rms, eps);
  TRSQRT(s.inv_rms, s.inv_rms);
  TROWEXPANDMUL(s.block, s.block, s.inv_rms);
  TCOLEXPANDMUL(s.block, s.block, gamma);
  auto out_rows = RowsAt(out, row, rows);
  TSTORE(out_rows, s.block);
}

void RmsNorm(const PyptoRtTensorDesc& x, const PyptoRtTensorDesc& gamma_desc, const PyptoRtTensorDesc& out,
             float eps) {
  GammaTile gamma(1, static_cast<int>(gamma_desc.shape[1]));
  TASSIGN(gamma, 2 * kRowsBytes);
  auto gamma_row = RowsAt(gamma_desc, 0, 1);
  TLOAD(gamma, gamma_row);
  const int64_t total = x.shape[0];
  for (int64_t row = 0; row < total; row += kBlockRows) {
    const int rows = static_cast<int>(total - row < kBlockRows ? total - row : kBlockRows);
    RmsNormBlock(x, out, gamma, eps, row, rows);
  }
}

}  // namespace

// Slots: x, gamma, out, then the scalar eps (manifest order).
extern "C" void kernel_entry(const int64_t* args, PyptoRtCoreContext* ctx) {
  RmsNorm(TensorArg(args, 0), TensorArg(args, 1), TensorArg(args, 2), ScalarArg<float>(args, 3));
  pypto_sim_finish_kernel(ctx, __FILE__);
}
