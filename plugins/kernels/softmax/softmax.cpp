// softmax_rows_fp32: out[r, :] = softmax(x[r, :]) over each row, FP32, on a
// vector core (AIV). Fused: each block of kBlockRows rows is loaded once,
// and max, exp(x - max), sum and the division run on the tile in place
// before one store, so the tensor crosses GM twice (once in, once out)
// instead of once per step as separate ops would.
//
// A row lives whole in one tile: the tile is kBlockRows x kMaxCols (128 KiB
// of the 184 KiB Vec buffer) and its valid region is the block's rows and
// the tensor's columns. A tensor wider than kMaxCols is a ValidShape fault
// of the tile's constructor, which the runtime reports with this file and
// line; the last block may have fewer rows.
#include "pypto/isa/kernel_abi.h"

using namespace pto;

namespace {

constexpr int kBlockRows = 8;
constexpr int kMaxCols = 4096;

using RowsTile = Tile<TileType::Vec, float, kBlockRows, kMaxCols, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
using RowStatTile = Tile<TileType::Vec, float, kBlockRows, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
using Window = GlobalTensor<float, Shape<DYNAMIC, DYNAMIC>, Stride<DYNAMIC, DYNAMIC>>;

// `rows` whole rows of a 2-D tensor from row `row` on.
Window RowsAt(const PyptoRtTensorDesc& t, int64_t row, int64_t rows) {
  float* first = static_cast<float*>(t.data) + row * t.strides[0];
  return Window(first, DynDims{{1, 1, 1, rows, t.shape[1]}}, DescStrides(t));
}

void SoftmaxBlock(const PyptoRtTensorDesc& x, const PyptoRtTensorDesc& out, int64_t row, int rows) {
  const int cols = static_cast<int>(x.shape[1]);
  RowsTile block(rows, cols);
  RowStatTile row_max(rows, 1);
  RowStatTile row_sum(rows, 1);
  TASSIGN(block, 0x0);
  TASSIGN(row_max, kBlockRows * kMaxCols * sizeof(float));
  TASSIGN(row_sum, kBlockRows * kMaxCols * sizeof(float) + kBlockRows * 8 * sizeof(float));
  auto x_rows = RowsAt(x, row, rows);
  TLOAD(block, x_rows);
  TROWMAX(row_max, block);
  TROWEXPANDEXPDIF(block, block, row_max);  // exp(x - max): no overflow for any finite row
  TROWSUM(row_sum, block);
  TROWEXPANDDIV(block, block, row_sum);
  auto out_rows = RowsAt(out, row, rows);
  TSTORE(out_rows, block);
}

void Softmax(const PyptoRtTensorDesc& x, const PyptoRtTensorDesc& out) {
  const int64_t total = x.shape[0];
  for (int64_t row = 0; row < total; row += kBlockRows) {
    const int rows = static_cast<int>(total - row < kBlockRows ? total - row : kBlockRows);
    SoftmaxBlock(x, out, row, rows);
  }
}

}  // namespace

// Slots: x, out (manifest order).
extern "C" void kernel_entry(const int64_t* args, PyptoRtCoreContext* ctx) {
  Softmax(TensorArg(args, 0), TensorArg(args, 1));
  pypto_sim_finish_kernel(ctx, __FILE__);
}
